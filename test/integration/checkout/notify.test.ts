/**
 * POST /notify over real HTTP: whatever body parsers the shop mounted, body shapes, field
 * validation, unknown orders, other accounts, and a gateway that cannot be reached to confirm.
 * Notifications are real ones the sandbox produced (held back with a dropNotification fault).
 */
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { notificationDedupeKey } from '../../../server/checkout/notify.js';
import { signMessage } from '../../../server/gateway/signing.js';
import {
  Browser, CARD, cardFields, onlyForm, payForm, paymentInput, SIGN_KEY, startHarness, uniqueOrderNo, type Harness,
} from './journeys-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => {
  h.setShopMiddleware(null);
  h.sandbox.faults.clear();
});
afterAll(async () => {
  await h.close();
});

/**
 * Takes an order through a passed 3-D Secure challenge while the sandbox holds the notification
 * back, and returns that notification's signed fields (the order is still requires_action).
 */
async function heldNotification(prefix: string): Promise<{ orderNo: string; fields: Record<string, string> }> {
  const orderNo = uniqueOrderNo(prefix);
  h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
  const browser = new Browser();
  const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
  const page = await browser.get(payUrl);
  const toIssuer = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.challenge));
  const challenge = await browser.submit(toIssuer, onlyForm(toIssuer));
  await browser.submit(challenge, onlyForm(challenge), {}, { name: 'decision', value: 'pass' });
  await h.sandbox.notifier.flush();
  const held = h.sandbox.ledger.notifications().find((n) => n.orderNo === orderNo && n.status === 'dropped');
  if (held === undefined) throw new Error('the notification was not held back');
  expect((await h.orderOf(orderNo)).state).toBe('requires_action');
  return { orderNo, fields: held.fields };
}

function resign(fields: Record<string, string>, changes: Record<string, string>): Record<string, string> {
  const out = { ...fields, ...changes };
  out.encryption_data = signMessage('notification', out, SIGN_KEY);
  return out;
}

async function post(body: string | FormData, contentType?: string): Promise<Response> {
  return fetch(`${h.shopUrl}/checkout/notify`, {
    method: 'POST',
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    body,
  });
}
const form = (fields: Record<string, string>): Promise<Response> => post(new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded');

describe('POST /notify reads the body whatever the shop mounted', () => {
  const parsers: [string, express.RequestHandler | null][] = [
    ['no parser', null],
    ['express.urlencoded', express.urlencoded({ extended: false })],
    ['express.urlencoded extended', express.urlencoded({ extended: true })],
    ['express.json', express.json()],
    ['express.text for every type', express.text({ type: '*/*' })],
    ['express.raw for every type', express.raw({ type: '*/*' })],
  ];
  it.each(parsers)('%s: applied once, 200', async (_name, parser) => {
    const { orderNo, fields } = await heldNotification('N-PARSER');
    h.setShopMiddleware(parser);
    const res = await form(fields);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('OK');
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('paid');
    const events = await h.kit.store.listEvents(order.id);
    expect(events.filter((e) => e.dedupeKey === notificationDedupeKey(fields))).toHaveLength(1);
    expect(h.hookCount('onPaid', orderNo)).toBe(1);
  });

  it('JSON under a form content type, and multipart, are understood', async () => {
    const a = await heldNotification('N-JSON');
    expect((await post(JSON.stringify(a.fields), 'application/x-www-form-urlencoded')).status).toBe(200);
    expect((await h.orderOf(a.orderNo)).state).toBe('paid');

    const b = await heldNotification('N-MULTI');
    const multipart = new FormData();
    for (const [k, v] of Object.entries(b.fields)) multipart.append(k, v);
    expect((await post(multipart)).status).toBe(200);
    expect((await h.orderOf(b.orderNo)).state).toBe('paid');
  });
});

describe('POST /notify takes every signed notification, refuses only what it cannot trust', () => {
  // The gateway retries anything but a 2xx for about 36 hours: a signed notification the kit
  // cannot read is kept and acknowledged, never answered 4xx.
  it('an unknown webhooks_type → 200, kept as an unrecognised event on the order, flagged once, state unchanged', async () => {
    const { orderNo, fields } = await heldNotification('N-INVALID');
    const before = await h.orderOf(orderNo);
    const unknown = resign(fields, { webhooks_type: 'settlement_report' });
    for (let i = 0; i < 2; i++) {
      const res = await form(unknown);
      expect(res.status).toBe(200);
    }
    const after = await h.orderOf(orderNo);
    expect(after.state).toBe('requires_action');
    // The flag names no field of the body (those outside the signature can say anything); the event keeps them.
    expect(after.attention).toMatch(/does not understand/);
    expect(after.attention).not.toMatch(/settlement_report/);
    const events = await h.kit.store.listEvents(after.id);
    const kept = events.filter((e) => e.type === 'notification_unrecognised');
    expect(kept).toHaveLength(1);
    expect(kept[0]?.data.problem).toMatch(/unknown webhooks_type/);
    expect(kept[0]?.dedupeKey).toBe(notificationDedupeKey(unknown));
    expect(events.length).toBe((await h.kit.store.listEvents(before.id)).length);
    expect(h.hookCount('onAttention', orderNo)).toBe(1);
    expect(h.hookCount('onPaid', orderNo)).toBe(0);
  });

  it('an unparseable amount → 200, kept as unrecognised naming amount, nothing applied', async () => {
    const { orderNo, fields } = await heldNotification('N-AMOUNT');
    const res = await form(resign(fields, { amount: '25.001' }));
    expect(res.status).toBe(200);
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('requires_action');
    const kept = (await h.kit.store.listEvents(order.id)).filter((e) => e.type === 'notification_unrecognised');
    expect(kept.map((e) => e.data.problem)).toEqual([expect.stringMatching(/amount/)]);
  });

  it('an unknown order → 200 and kept on the list of unmatched notifications, once', async () => {
    const { fields } = await heldNotification('N-UNKNOWN');
    const stray = resign(fields, { order_no: 'NO-SUCH-ORDER', transaction_id: 'NO-SUCH-TX' });
    expect((await form(stray)).status).toBe(200);
    expect((await form(stray)).status).toBe(200);
    const unmatched = (await h.kit.adminStore.listNotifications({ limit: 100 })).filter((n) => n.orderNo === 'NO-SUCH-ORDER');
    expect(unmatched).toHaveLength(1);
    expect(unmatched[0]).toMatchObject({ kind: 'payment', transactionId: 'NO-SUCH-TX', dedupeKey: notificationDedupeKey(stray) });
    expect(h.logs.some((l) => l.includes('NO-SUCH-ORDER') && l.includes('unmatched'))).toBe(true);
  });

  it('another merchant account, even correctly signed → 403, recorded as rejected', async () => {
    const { orderNo, fields } = await heldNotification('N-ACCOUNT');
    const res = await form(resign(fields, { account_id: '999999999' }));
    expect(res.status).toBe(403);
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('requires_action');
    const rejected = (await h.kit.store.listEvents(order.id)).filter((e) => e.type === 'notification_rejected');
    expect(rejected.map((e) => e.data.reason)).toEqual(['other_account']);
  });

  it('no signature, or one signed with another key → 401', async () => {
    const { orderNo, fields } = await heldNotification('N-SIG');
    const { encryption_data: _dropped, ...unsigned } = fields;
    expect((await form(unsigned)).status).toBe(401);
    const otherKey = { ...fields, encryption_data: signMessage('notification', fields, 'another-key') };
    expect((await form(otherKey)).status).toBe(401);
    expect((await form({ ...fields, encryption_data: fields.encryption_data!.toUpperCase() })).status).toBe(200);
    expect((await h.orderOf(orderNo)).state).toBe('paid');
  });

  it('a body over the limit → 413', async () => {
    const res = await post(`a=${'x'.repeat(70 * 1024)}`, 'application/x-www-form-urlencoded');
    expect(res.status).toBe(413);
  });
});

describe('POST /notify when the gateway cannot confirm', () => {
  it('answers 503 without recording the dedupe key; the retry is applied once the gateway answers', async () => {
    const { orderNo, fields } = await heldNotification('N-503');
    h.sandbox.faults.add({ kind: 'http500', operation: 'retrievalTrans' });
    const res = await form(fields);
    expect(res.status).toBe(503);
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('requires_action');
    const key = notificationDedupeKey(fields);
    expect((await h.kit.store.listEvents(order.id)).filter((e) => e.dedupeKey === key)).toHaveLength(0);
    expect(h.hookCount('onPaid', orderNo)).toBe(0);

    h.sandbox.faults.clear();
    expect((await form(fields)).status).toBe(200);
    expect((await h.orderOf(orderNo)).state).toBe('paid');
    expect(h.hookCount('onPaid', orderNo)).toBe(1);
  });
});
