/**
 * Real journeys against the sandbox, then GET /metrics: the counters and histograms move as
 * each journey dictates (paid, declined, a notification sent twice, a forged notification), and
 * no label carries an order number or anything the shopper sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScrape, scrape, type Scrape } from '../../helpers/prometheus.js';
import {
  Browser, CARD, cardFields, failedChallenge, onlyForm, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness, type Page,
} from './journeys-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const metrics = (): Promise<Scrape> => scrape(`${h.shopUrl}/_ops/metrics`);
const notificationsOf = (orderNo: string) => h.sandbox.ledger.notifications().filter((n) => n.orderNo === orderNo);

async function control(path: string): Promise<void> {
  const res = await fetch(`${h.gateway.baseUrl}/_sandbox${path}`, { method: 'POST' });
  expect(res.status).toBe(200);
}

async function payByCard(orderNo: string, card: string): Promise<Page> {
  const browser = new Browser();
  const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
  const page = await browser.get(payUrl);
  return browser.submit(page, payForm(page, 'card'), cardFields(card));
}

async function challengeDecided(orderNo: string): Promise<void> {
  const browser = new Browser();
  const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
  const page = await browser.get(payUrl);
  const toIssuer = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.challenge));
  const challenge = await browser.submit(toIssuer, onlyForm(toIssuer));
  await browser.submit(challenge, onlyForm(challenge), {}, { name: 'decision', value: 'pass' });
}

describe('GET /metrics after real journeys', () => {
  it('a card payment that is paid: started and finished paid by card, its settle time observed, the gateway call counted', async () => {
    const before = await metrics();
    const orderNo = uniqueOrderNo('M-PAID');
    const result = await payByCard(orderNo, CARD.approve);
    expect(result.html).toMatch(/Payment received/);
    await h.sandbox.notifier.flush();
    const after = await metrics();
    const delta = (name: string, labels?: Record<string, string>): number => after.value(name, labels) - before.value(name, labels);

    expect(delta('checkout_payments_started_total', { method: 'card' })).toBe(1);
    expect(delta('checkout_payments_finished_total', { method: 'card', outcome: 'paid' })).toBe(1);
    expect(delta('checkout_payments_finished_total', { outcome: 'declined' })).toBe(0);
    expect(delta('checkout_payment_settle_seconds_count', { method: 'card', outcome: 'paid' })).toBe(1);
    expect(delta('checkout_gateway_requests_total', { operation: 'authorise', outcome: 'ok' })).toBe(1);
    expect(delta('checkout_gateway_request_duration_seconds_count', { operation: 'authorise' })).toBe(1);
    // The notification that follows a payment already settled by its answer changes nothing.
    expect(delta('checkout_notifications_total')).toBe(notificationsOf(orderNo).length);
    expect(delta('checkout_notifications_total', { result: 'applied' })).toBe(0);
    // Bounded labels: the order number appears nowhere.
    expect(after.text).not.toContain(orderNo);
  });

  it('a declined card: finished declined with its decline code family', async () => {
    const before = await metrics();
    const orderNo = uniqueOrderNo('M-DECL');
    await payByCard(orderNo, CARD.decline);
    expect((await h.kit.store.getByOrderNo(orderNo))?.state).toBe('declined');
    const after = await metrics();
    expect(after.value('checkout_payments_finished_total', { method: 'card', outcome: 'declined', decline_family: 'do_not_honor' })
      - before.value('checkout_payments_finished_total', { method: 'card', outcome: 'declined', decline_family: 'do_not_honor' })).toBe(1);
    expect(after.value('checkout_payments_finished_total', { outcome: 'paid' }) - before.value('checkout_payments_finished_total', { outcome: 'paid' })).toBe(0);
    expect(after.value('checkout_payments_started_total', { method: 'card' }) - before.value('checkout_payments_started_total', { method: 'card' })).toBe(1);
  });

  it('a failed 3-D Secure challenge declined by the return\'s query counts as unknown, not as the challenge\'s "authentication required"', async () => {
    const family = (s: Scrape, f: string): number => s.value('checkout_payments_finished_total', { method: 'card', outcome: 'declined', decline_family: f });
    const before = await metrics();
    const orderNo = uniqueOrderNo('M-3DS');
    await failedChallenge(h, orderNo);
    const order = await h.kit.store.getByOrderNo(orderNo);
    expect(order?.state).toBe('declined');
    // The refusal's code reached the order after the count: the order says why, the count had no code.
    expect(order?.data.resultCode).toBe('0201');
    const after = await metrics();
    // Unknown when the return's query declined it first (the usual order), authentication_failed
    // when the refusal notification got there first; never 'other' for the step's 0200.
    expect(family(after, 'unknown') - family(before, 'unknown') + family(after, 'authentication_failed') - family(before, 'authentication_failed')).toBe(1);
    expect(family(after, 'other') - family(before, 'other')).toBe(0);
    expect(after.value('checkout_payments_finished_total', { outcome: 'declined' }) - before.value('checkout_payments_finished_total', { outcome: 'declined' })).toBe(1);
  });

  it('a notification that settles the payment is applied; the same notification twice is counted as duplicates', async () => {
    const orderNo = uniqueOrderNo('M-DUP');
    const before = await metrics();
    await challengeDecided(orderNo);
    await h.sandbox.notifier.flush();
    expect((await h.kit.store.getByOrderNo(orderNo))?.state).toBe('paid');
    const middle = await metrics();
    expect(middle.value('checkout_notifications_total', { result: 'applied' }) - before.value('checkout_notifications_total', { result: 'applied' })).toBe(1);
    expect(middle.value('checkout_payments_finished_total', { method: 'card', outcome: 'paid' })
      - before.value('checkout_payments_finished_total', { method: 'card', outcome: 'paid' })).toBe(1);

    const first = notificationsOf(orderNo)[0]!;
    await control(`/notifications/${first.id}/twice`);
    await h.sandbox.notifier.flush();
    const after = await metrics();
    expect(after.value('checkout_notifications_total', { result: 'duplicate' }) - middle.value('checkout_notifications_total', { result: 'duplicate' })).toBe(2);
    expect(after.value('checkout_notifications_total', { result: 'applied' }) - middle.value('checkout_notifications_total', { result: 'applied' })).toBe(0);
    expect(after.value('checkout_payments_finished_total') - middle.value('checkout_payments_finished_total')).toBe(0);
  });

  it('a forged notification: every delivery counted as a refused signature, nothing finished', async () => {
    const orderNo = uniqueOrderNo('M-FORGED');
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
    await challengeDecided(orderNo);
    await h.sandbox.notifier.flush();
    const before = await metrics();
    const dropped = notificationsOf(orderNo).find((n) => n.status === 'dropped')!;
    await control(`/notifications/${dropped.id}/bad-signature`);
    await h.sandbox.notifier.flush();
    const forged = notificationsOf(orderNo).find((n) => n.origin === 'bad-signature')!;
    expect(forged.attempts.length).toBeGreaterThan(0);
    const after = await metrics();
    expect(after.value('checkout_notifications_total', { result: 'refused_signature' }) - before.value('checkout_notifications_total', { result: 'refused_signature' }))
      .toBe(forged.attempts.length);
    expect(after.value('checkout_payments_finished_total') - before.value('checkout_payments_finished_total')).toBe(0);
  });

  it('scrape-time gauges read the store: pending orders, the oldest one, the hook outbox', async () => {
    const orderNo = uniqueOrderNo('M-PEND');
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
    await challengeDecided(orderNo);
    await h.sandbox.notifier.flush();
    expect((await h.kit.store.getByOrderNo(orderNo))?.state).toBe('requires_action');
    const now = await metrics();
    expect(now.value('checkout_orders_pending')).toBeGreaterThanOrEqual(1);
    expect(now.value('checkout_orders_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(now.text).toMatch(/^checkout_hook_outbox_entries\{status="pending"\} 0$/m);
    expect(now.text).toMatch(/^checkout_hook_outbox_entries\{status="dead"\} 0$/m);
  });

  it('the parser reads labelled samples (self-check)', () => {
    const s = parseScrape('# HELP x y\nx_total{a="1",b="2"} 3\nx_total{a="1",b="3"} 4\n');
    expect(s.value('x_total', { a: '1' })).toBe(7);
    expect(s.value('x_total', { b: '3' })).toBe(4);
  });

  it('the pay rate limit: refusals counted, and as a card-testing signal', async () => {
    const limited = await startHarness({ rateLimit: { limit: 1, windowMs: 60_000 } });
    try {
      const { payUrl } = await limited.kit.createPayment(paymentInput(uniqueOrderNo('M-LIMIT')));
      const post = () => fetch(payUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'payment_method=card' });
      expect((await post()).status).toBe(403); // through the limit, refused by the CSRF check
      expect((await post()).status).toBe(429);
      expect((await post()).status).toBe(429);
      const s = await scrape(`${limited.shopUrl}/_ops/metrics`);
      expect(s.value('checkout_rate_limited_total', { limiter: 'pay' })).toBe(2);
      expect(s.value('checkout_card_testing_suspected_total', { signal: 'rate_limit' })).toBe(2);
      expect(s.value('checkout_payments_started_total')).toBe(0);
    } finally {
      await limited.close();
    }
  });
});
