/**
 * The shopper's signed 3-D Secure return fields (signed-return.ts) posted to /notify again and
 * again, each time with other unsigned fields: every variation verifies and has a new dedupe key,
 * and each used to cost the shop a gateway query (and a refund search on a refunded order). Here
 * the notifications go to a second engine on the kit's own SQLite store, with a clock the test
 * moves and a count of the gateway requests its port makes: the flood must cost a bounded number
 * of queries and change nothing, the gateway's genuine notification of a real change after it must
 * still be applied (on its retry once the reused answer is out of date), and genuine sequences
 * must ask the gateway exactly as often as before.
 */
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayPort } from '../../../server/checkout/gateway-port.js';
import { createNotifyRoutes } from '../../../server/checkout/notify.js';
import type { GatewayClient } from '../../../server/gateway/client.js';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { Order } from '../../../server/orders/types.js';
import { Browser, CARD, cardFields, onlyForm, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness } from '../checkout/journeys-harness.js';
import { testClock } from '../orders/fixtures.js';
import { challenged } from './signed-return.js';

/** How many records of nothing an order's log keeps in a row (the engine's quiet run). */
const QUIET_RUN = 10;
/** Longer than the engine reuses a flooded order's answer for. */
const PAST_THE_WINDOW_MS = 60_000;

let h: Harness;
const clock = testClock(Date.now());
/** Gateway requests made by the second engine's port: queries and refund searches. */
const asked = { transactions: 0, refunds: 0 };
let app: express.Express;

beforeAll(async () => {
  h = await startHarness();
  const queries = h.kit.client.queries;
  const counted: Pick<GatewayClient, 'queries'> = {
    queries: {
      transactions: (q, options) => {
        asked.transactions++;
        return queries.transactions(q, options);
      },
      refunds: (q, options) => {
        asked.refunds++;
        return queries.refunds(q, options);
      },
    },
  };
  const engine = createReconcileEngine({ store: h.kit.store, gateway: createGatewayPort(counted), now: clock.now, monotonicMs: () => clock.now().getTime(), owner: 'flood-test' });
  app = express();
  app.use(createNotifyRoutes({ ...h.kit.context, engine }).router);
});
afterAll(async () => {
  await h.close();
});

async function post(fields: Record<string, string>): Promise<{ status: number; retryAfter: string | undefined }> {
  const res = await request(app).post('/notify').type('form').send(fields);
  return { status: res.status, retryAfter: res.headers['retry-after'] };
}

const snapshot = () => ({ transactions: asked.transactions, refunds: asked.refunds });
const since = (before: { transactions: number; refunds: number }) => ({ transactions: asked.transactions - before.transactions, refunds: asked.refunds - before.refunds });

/** The notifications the sandbox kept back for this order (a dropNotification fault), oldest first. */
const dropped = (orderNo: string, seen: number): Record<string, string>[] =>
  h.sandbox.ledger.notifications().filter((n) => n.orderNo === orderNo && n.status === 'dropped').slice(seen).map((n) => n.fields);

async function refundAtGateway(order: Order, amount: number): Promise<void> {
  const [done] = await h.kit.client.batch.refund([{ transaction_id: order.transactionId ?? '', order_no: order.orderNo, currency: 'USD', amount: 2500, refund_amount: amount }]);
  expect(done?.ok).toBe(true);
}

/** A paid order (3-D Secure passed), 5.00 of it refunded at the gateway: its queries include a refund search. */
async function refundedOrder(prefix: string): Promise<{ returned: Record<string, string>; order: Order; reference: string }> {
  const orderNo = uniqueOrderNo(prefix);
  const { returned } = await challenged(h, orderNo, 'pass');
  await refundAtGateway(await h.orderOf(orderNo), 500);
  await h.sandbox.notifier.flush();
  const order = await h.orderOf(orderNo);
  expect(order).toMatchObject({ state: 'partially_refunded', refundedAmount: 500 });
  const [row] = await h.kit.store.listRefunds(order.id);
  return { returned, order, reference: row?.referenceId ?? '' };
}

/**
 * Variation `i` of the signed body, and the status it gets from a fresh answer: a payment approval
 * with made-up text and the held refund with another amount change nothing (200); a refund and a
 * chargeback the gateway does not confirm are unconfirmed (503, as the gateway would be asked to
 * retry). A reused answer never dismisses a claim: every post it does not turn into a write gets 503.
 */
function variation(returned: Record<string, string>, reference: string, i: number): { fields: Record<string, string>; status: number } {
  const n = String(i);
  switch (i % 4) {
    case 0:
      return { fields: { ...returned, webhooks_type: 'payment', payment_status: '3000', result_info: `0000:x${n}` }, status: 200 };
    case 1:
      return { fields: { ...returned, webhooks_type: 'refund', payment_status: '3100', refund_reference_id: `FAKE-${n}`, refund_amount: '1.00' }, status: 503 };
    case 2:
      return { fields: { ...returned, webhooks_type: 'chargeback', payment_status: '7000', chargeback_reason: `r${n}` }, status: 503 };
    default:
      return { fields: { ...returned, webhooks_type: 'refund', payment_status: '3100', refund_reference_id: reference, refund_amount: `${n}.01` }, status: 200 };
  }
}

/**
 * `count` variations of a fresh order's body: the first half one after the other, the rest in
 * parallel batches of ten. The first QUIET_RUN are asked about (and recorded); from then on the
 * answer is reused and each gets 503.
 */
async function flood(returned: Record<string, string>, reference: string, count: number): Promise<void> {
  const half = Math.floor(count / 2);
  for (let i = 0; i < half; i++) {
    const { fields, status } = variation(returned, reference, i);
    expect((await post(fields)).status, `variation ${String(i)}`).toBe(i < QUIET_RUN ? status : 503);
  }
  for (let i = half; i < count; i += 10) {
    const batch = Array.from({ length: Math.min(10, count - i) }, (_, k) => variation(returned, reference, i + k));
    const answers = await Promise.all(batch.map((v) => post(v.fields)));
    expect(answers.map((a) => a.status)).toEqual(batch.map(() => 503));
  }
}

describe('a signed body posted with 200 variations of its unsigned fields', () => {
  it('costs a bounded number of gateway queries and changes nothing on the order', async () => {
    const { returned, order, reference } = await refundedOrder('FLOOD-BOUND');
    const events = (await h.kit.store.listEvents(order.id)).length;
    const before = snapshot();
    await flood(returned, reference, 200);
    // One query (and one refund search) per variation until the order's quiet run is full, then
    // the answer is reused while the clock stands still.
    expect(since(before).transactions).toBeLessThanOrEqual(QUIET_RUN + 1);
    expect(since(before).refunds).toBeLessThanOrEqual(QUIET_RUN + 1);
    const after = await h.orderOf(order.orderNo);
    expect(after).toMatchObject({ state: 'partially_refunded', refundedAmount: 500, capturedAmount: 2500, version: order.version, attention: null });
    expect((await h.kit.store.listRefunds(order.id)).map((r) => [r.referenceId, r.amount, r.status])).toEqual([[reference, 500, 'succeeded']]);
    expect((await h.kit.store.listEvents(order.id)).length - events).toBeLessThanOrEqual(QUIET_RUN);

    // A window later, twenty at once: they wait their turn for the order and share one fresh answer.
    clock.advance(PAST_THE_WINDOW_MS);
    const later = snapshot();
    const burst = Array.from({ length: 20 }, (_, k) => variation(returned, reference, 200 + k));
    const statuses = (await Promise.all(burst.map((v) => post(v.fields)))).map((a) => a.status);
    // The first one served is asked about and answered as a fresh answer says; the rest reuse it: 503.
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThanOrEqual(19);
    expect(since(later)).toEqual({ transactions: 1, refunds: 1 });
    expect(await h.orderOf(order.orderNo)).toMatchObject({ state: 'partially_refunded', refundedAmount: 500, version: order.version });
  });

  it("still applies the gateway's notification of a new refund after it: unconfirmed (503) within the window, applied on the retry after it", async () => {
    const { returned, order, reference } = await refundedOrder('FLOOD-REFUND');
    await flood(returned, reference, 60);
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo: order.orderNo });
    await refundAtGateway(order, 700);
    await h.sandbox.notifier.flush();
    const genuine = dropped(order.orderNo, 0);
    expect(genuine.length).toBeGreaterThan(0);

    // Within the window the answer the flood got is reused: it does not list the new refund.
    const before = snapshot();
    for (const fields of genuine) expect(await post(fields)).toEqual({ status: 503, retryAfter: '5' });
    expect(since(before)).toEqual({ transactions: 0, refunds: 0 });
    expect(await h.orderOf(order.orderNo)).toMatchObject({ state: 'partially_refunded', refundedAmount: 500, version: order.version });

    // The gateway retries after the window: a fresh answer confirms the refund, recorded once.
    clock.advance(PAST_THE_WINDOW_MS);
    for (const fields of genuine) expect((await post(fields)).status).toBe(200);
    expect(since(before)).toEqual({ transactions: 1, refunds: 1 });
    const after = await h.orderOf(order.orderNo);
    expect(after).toMatchObject({ state: 'partially_refunded', refundedAmount: 1200 });
    expect((await h.kit.store.listRefunds(order.id)).filter((r) => r.status === 'succeeded').map((r) => r.amount).sort((a, b) => a - b)).toEqual([500, 700]);
    // The write dropped the reused answer: the next confirmation asks again.
    const again = snapshot();
    expect((await post(variation(returned, reference, 1_000).fields)).status).toBe(200);
    expect(since(again)).toEqual({ transactions: 1, refunds: 1 });
  });
});

describe('a reused answer never dismisses a claim', () => {
  it("a new refund notified without its refund fields during a flood gets 503, not 200, and is recorded once a fresh answer lists it", async () => {
    const { returned, order, reference } = await refundedOrder('FLOOD-BARE');
    await flood(returned, reference, 30);
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo: order.orderNo });
    await refundAtGateway(order, 700);
    await h.sandbox.notifier.flush();
    const [genuine] = dropped(order.orderNo, 0);
    expect(genuine).toBeDefined();
    // A refund event without per-refund fields: against the reused answer (partially refunded, one
    // refund) it reports nothing new, and a noop answered 200 would never be retried.
    const bare = { ...genuine };
    delete bare.refund_reference_id;
    delete bare.refund_amount;
    expect(await post(bare)).toEqual({ status: 503, retryAfter: '5' });
    expect(await h.orderOf(order.orderNo)).toMatchObject({ refundedAmount: 500, version: order.version });
    // The retry after the window is asked about: the gateway's refund search lists the new refund.
    clock.advance(PAST_THE_WINDOW_MS);
    expect((await post(bare)).status).toBe(200);
    const after = await h.orderOf(order.orderNo);
    expect(after).toMatchObject({ state: 'partially_refunded', refundedAmount: 1200 });
    expect((await h.kit.store.listRefunds(order.id)).filter((r) => r.status === 'succeeded').map((r) => r.amount).sort((a, b) => a - b)).toEqual([500, 700]);
  });
});

describe('genuine sequences ask the gateway as before (the clock stands still)', () => {
  it('pay → payment notification → refund notification → their repeats: one query per new notification, a refund search with the refund', async () => {
    const orderNo = uniqueOrderNo('FLOOD-GENUINE');
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo });
    const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
    const browser = new Browser();
    const page = await browser.get(payUrl);
    await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
    await h.sandbox.notifier.flush();
    const paid = await h.orderOf(orderNo);
    expect(paid.state).toBe('paid');

    const payments = dropped(orderNo, 0);
    expect(payments.length).toBeGreaterThan(0);
    let before = snapshot();
    for (const fields of payments) expect((await post(fields)).status).toBe(200);
    expect(since(before)).toEqual({ transactions: payments.length, refunds: 0 });

    await refundAtGateway(paid, 500);
    await h.sandbox.notifier.flush();
    const refunds = dropped(orderNo, payments.length);
    expect(refunds.length).toBeGreaterThan(0);
    before = snapshot();
    for (const fields of refunds) expect((await post(fields)).status).toBe(200);
    expect(since(before)).toEqual({ transactions: refunds.length, refunds: refunds.length });
    expect(await h.orderOf(orderNo)).toMatchObject({ state: 'partially_refunded', refundedAmount: 500 });

    // The gateway's repeats are duplicates: no query.
    before = snapshot();
    for (const fields of [...payments, ...refunds]) expect((await post(fields)).status).toBe(200);
    expect(since(before)).toEqual({ transactions: 0, refunds: 0 });
  });

  it('a notification ahead of the query is asked about on every retry, and applied once the gateway confirms it', async () => {
    const orderNo = uniqueOrderNo('FLOOD-AHEAD');
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo });
    const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const toIssuer = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.challenge));
    const challenge = await browser.submit(toIssuer, onlyForm(toIssuer));
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('requires_action');
    await h.control(`/transactions/${order.transactionId ?? ''}/notify`, { order_status: '1', payment_status: '3000', result_info: '0000:Success' });
    const [early] = dropped(orderNo, 0);
    expect(early).toBeDefined();
    let before = snapshot();
    for (let retry = 0; retry < 12; retry++) expect((await post(early ?? {})).status).toBe(503);
    expect(since(before)).toEqual({ transactions: 12, refunds: 0 });

    await browser.submit(challenge, onlyForm(challenge), {}, { name: 'decision', value: 'pass' });
    await h.sandbox.notifier.flush();
    before = snapshot();
    expect((await post(early ?? {})).status).toBe(200);
    expect(since(before)).toEqual({ transactions: 1, refunds: 0 });
    expect(await h.orderOf(orderNo)).toMatchObject({ state: 'paid' });
  });
});
