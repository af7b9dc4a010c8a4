/**
 * Journeys where the order of return and notification matters, notifications repeat, arrive
 * out of order, are forged or disagree with the order, the gateway times out, and a scan of
 * everything stored and logged for card data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationDedupeKey } from '../../../server/checkout/notify.js';
import { signMessage } from '../../../server/gateway/signing.js';
import type { OrderEvent } from '../../../server/orders/types.js';
import {
  Browser, CARD, cardFields, onlyForm, payForm, paymentInput, SIGN_KEY, startHarness, uniqueOrderNo, type Harness, type Page,
} from './journeys-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const eventsOf = async (orderNo: string): Promise<OrderEvent[]> => h.kit.store.listEvents((await h.orderOf(orderNo)).id);
const notificationsOf = (orderNo: string) => h.sandbox.ledger.notifications().filter((n) => n.orderNo === orderNo);

async function postNotify(fields: Record<string, string>): Promise<Response> {
  return fetch(`${h.shopUrl}/checkout/notify`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Pays by card with a 3-D Secure challenge and stops on the sandbox page that returns to the shop. */
async function challengeDecided(orderNo: string, decision: 'pass' | 'fail'): Promise<{ browser: Browser; back: Page }> {
  const browser = new Browser();
  const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
  const page = await browser.get(payUrl);
  const toIssuer = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.challenge));
  const challenge = await browser.submit(toIssuer, onlyForm(toIssuer));
  const back = await browser.submit(challenge, onlyForm(challenge), {}, { name: 'decision', value: decision });
  return { browser, back };
}

async function payByCard(orderNo: string, card: string = CARD.approve, cvv = '737'): Promise<Page> {
  const browser = new Browser();
  const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
  const page = await browser.get(payUrl);
  return browser.submit(page, payForm(page, 'card'), { ...cardFields(card), security_code: cvv });
}

describe('return and notification, either order', () => {
  it('notify before return: the notification settles the order, the return only adds its hint', async () => {
    const orderNo = uniqueOrderNo('J-N-FIRST');
    const { browser, back } = await challengeDecided(orderNo, 'pass');
    await h.sandbox.notifier.flush();
    expect((await h.orderOf(orderNo)).state).toBe('paid');
    const paidBy = (await eventsOf(orderNo)).find((e) => e.type === 'transition' && e.toState === 'paid');
    expect(paidBy?.source).toBe('notify');

    const result = await browser.submit(back, onlyForm(back));
    expect(result.html).toMatch(/Payment received/);
    const events = await eventsOf(orderNo);
    expect(events.filter((e) => e.type === 'transition' && e.toState === 'paid')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'return_hint')).toHaveLength(1);
    expect(h.hookCount('onPaid', orderNo)).toBe(1);
  });

  it('return before notify: the return confirms by query; the late notification changes nothing', async () => {
    const orderNo = uniqueOrderNo('J-R-FIRST');
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
    const { browser, back } = await challengeDecided(orderNo, 'pass');
    await h.sandbox.notifier.flush();
    expect((await h.orderOf(orderNo)).state).toBe('requires_action');

    const result = await browser.submit(back, onlyForm(back));
    expect(result.html).toMatch(/Payment received/);
    const paidBy = (await eventsOf(orderNo)).find((e) => e.type === 'transition' && e.toState === 'paid');
    expect(paidBy?.source).toBe('return');
    expect(paidBy?.data.confirmedBy).toBe('query');

    const dropped = notificationsOf(orderNo).find((n) => n.status === 'dropped');
    expect(dropped).toBeDefined();
    await h.control(`/notifications/${dropped!.id}/resend`);
    await h.sandbox.notifier.flush();
    expect((await h.orderOf(orderNo)).state).toBe('paid');
    expect(h.hookCount('onPaid', orderNo)).toBe(1);
    expect(notificationsOf(orderNo).filter((n) => n.origin === 'resend').map((n) => n.status)).toEqual(['delivered']);
  });
});

describe('repeated, reordered and untrusted notifications', () => {
  it('the same notification twice: both acknowledged, applied once', async () => {
    const orderNo = uniqueOrderNo('J-DUP');
    await challengeDecided(orderNo, 'pass');
    await h.sandbox.notifier.flush();
    const first = notificationsOf(orderNo)[0]!;
    const before = await eventsOf(orderNo);
    await h.control(`/notifications/${first.id}/twice`);
    await h.sandbox.notifier.flush();
    const copies = notificationsOf(orderNo).filter((n) => n.origin === 'twice');
    expect(copies.map((n) => n.status)).toEqual(['delivered', 'delivered']);
    const after = await eventsOf(orderNo);
    expect(after).toHaveLength(before.length);
    // The first delivery was stored under its dedupe key; the copies found it and stopped.
    const key = notificationDedupeKey(first.fields);
    expect(after.filter((e) => e.dedupeKey === key)).toHaveLength(1);
    expect(after.find((e) => e.dedupeKey === key)?.toState).toBe('paid');
    expect(h.hookCount('onPaid', orderNo)).toBe(1);
  });

  it('payment and refund notifications shuffled: the order ends refunded, never back to paid', async () => {
    const orderNo = uniqueOrderNo('J-SHUF');
    await payByCard(orderNo);
    await h.sandbox.notifier.flush();
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('paid');
    const [refund] = await h.kit.client.batch.refund([
      { transaction_id: order.transactionId!, order_no: orderNo, currency: 'USD', amount: 2500, refund_amount: 2500 },
    ]);
    expect(refund?.ok).toBe(true);
    await h.sandbox.notifier.flush();
    expect((await h.orderOf(orderNo)).state).toBe('refunded');

    for (let round = 0; round < 3; round++) {
      await h.control('/notifications/shuffle', { transactionId: order.transactionId! });
      await h.sandbox.notifier.flush();
      expect((await h.orderOf(orderNo)).state).toBe('refunded');
    }
    expect(h.hookCount('onPaid', orderNo)).toBe(1);
    expect(h.hookCount('onRefunded', orderNo)).toBe(1);
    const transitions = (await eventsOf(orderNo)).filter((e) => e.type === 'transition').map((e) => e.toState);
    expect(transitions).toEqual(['pending', 'paid', 'refunded']);
  });

  it('a forged notification is refused with 401, recorded as rejected, and changes nothing', async () => {
    const orderNo = uniqueOrderNo('J-FORGED');
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
    await challengeDecided(orderNo, 'pass');
    await h.sandbox.notifier.flush();
    const before = await h.orderOf(orderNo);
    expect(before.state).toBe('requires_action');

    const dropped = notificationsOf(orderNo).find((n) => n.status === 'dropped')!;
    await h.control(`/notifications/${dropped.id}/bad-signature`);
    await h.sandbox.notifier.flush();
    const forged = notificationsOf(orderNo).find((n) => n.origin === 'bad-signature')!;
    expect(forged.attempts[0]?.httpStatus).toBe(401);

    const after = await h.orderOf(orderNo);
    expect(after.state).toBe('requires_action');
    expect(after.version).toBe(before.version);
    const rejected = (await eventsOf(orderNo)).filter((e) => e.type === 'notification_rejected');
    // Every retry of the same forged body is one record.
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.data.reason).toBe('bad_signature');
    expect(h.hookCount('onPaid', orderNo)).toBe(0);
    expect(h.hookCount('onTransition', orderNo)).toBe(2); // pending (submitted) and requires_action only
  });

  it('a signed notification whose amount differs is recorded and flagged, never applied', async () => {
    const orderNo = uniqueOrderNo('J-MISMATCH');
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
    await challengeDecided(orderNo, 'pass');
    await h.sandbox.notifier.flush();
    const dropped = notificationsOf(orderNo).find((n) => n.status === 'dropped')!;
    const fields: Record<string, string> = { ...dropped.fields, amount: '1.00' };
    fields.encryption_data = signMessage('notification', fields, SIGN_KEY);

    const res = await postNotify(fields);
    expect(res.status).toBe(200);
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('requires_action');
    expect(order.attention).toMatch(/amount/);
    const mismatch = (await eventsOf(orderNo)).filter((e) => e.type === 'mismatch');
    expect(mismatch).toHaveLength(1);
    expect(h.hookCount('onAttention', orderNo)).toBe(1);
    expect(h.hookCount('onPaid', orderNo)).toBe(0);
    // The same notification again adds nothing.
    expect((await postNotify(fields)).status).toBe(200);
    expect((await eventsOf(orderNo)).filter((e) => e.type === 'mismatch')).toHaveLength(1);
  });
});

describe('gateway timeout, then the sweeper', () => {
  it('a timed-out authorise leaves the order pending; the sweep settles it paid; authorise was sent once', async () => {
    const orderNo = uniqueOrderNo('J-TIMEOUT');
    h.sandbox.faults.add({ kind: 'timeout', operation: 'authorise', orderNo, times: 1 });
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
    const result = await payByCard(orderNo);
    expect(new URL(result.url).pathname).toMatch(/^\/checkout\/result\//);
    expect(result.html).toMatch(/Confirming your payment/);
    expect(result.html).toMatch(/<meta http-equiv="refresh" content="3">/);
    expect((await h.orderOf(orderNo)).state).toBe('pending');
    expect(h.hookCount('onPaid', orderNo)).toBe(0);

    const report = await h.kit.sweeper.runOnce();
    expect(report.settled).toBeGreaterThanOrEqual(1);
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('paid');
    expect(h.hookCount('onPaid', orderNo)).toBe(1);
    expect(h.sandbox.ledger.transactions().filter((t) => t.orderNo === orderNo)).toHaveLength(1);
    const transitions = (await eventsOf(orderNo)).filter((e) => e.type === 'transition');
    expect(transitions.map((e) => [e.source, e.toState])).toEqual([['pay', 'pending'], ['sweeper', 'paid']]);

    // The result page now tells the truth and stops refreshing.
    const again = await new Browser().get(result.url);
    expect(again.html).toMatch(/Payment received/);
    expect(again.html).not.toContain('http-equiv="refresh"');
  });
});

describe('card data', () => {
  it('appears in no stored order, event or log line after card journeys', async () => {
    const cvv = '9173';
    const approved = uniqueOrderNo('J-SCAN-OK');
    const declined = uniqueOrderNo('J-SCAN-NO');
    await payByCard(approved, CARD.approve, cvv);
    await payByCard(declined, CARD.decline, cvv);
    await h.sandbox.notifier.flush();
    expect((await h.orderOf(approved)).state).toBe('paid');

    const orders = await h.kit.store.list({ limit: 10_000 });
    const rows: unknown[] = [...orders];
    for (const o of orders) rows.push(...(await h.kit.store.listEvents(o.id)));
    const stored = JSON.stringify(rows);
    const logged = h.logs.join('\n');
    for (const card of [CARD.approve, CARD.decline]) {
      expect(stored).not.toContain(card);
      expect(logged).not.toContain(card);
    }
    // The CVV as any value of any stored or logged object.
    const values: unknown[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
      else values.push(v);
    };
    walk(JSON.parse(stored));
    for (const line of h.logs) walk(JSON.parse(line));
    expect(values.filter((v) => v === cvv || v === Number(cvv))).toEqual([]);
    expect(stored).not.toMatch(/security_code|expiration_(month|year)/);
    expect(values.length).toBeGreaterThan(100);
  });
});
