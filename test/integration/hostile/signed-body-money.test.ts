/**
 * A shopper's signed return fields (signed-return.ts) posted to /notify as refunds, chargebacks,
 * captures and codes, with the default options: the gateway's query decides, so no refund it does
 * not list reaches the ledger, no claim the query contradicts leaves text on the order, no code a
 * shopper makes up displaces the gateway's, and unrecognised variations flag the order once and
 * stop adding events. Genuine facts arriving after a run of such junk are still applied once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECENT_ANSWER_MS } from '../../../server/orders/recent-answers.js';
import { LedgerStore } from '../../../server/sandbox/ledger.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { startHarness, uniqueOrderNo, type Harness } from '../checkout/journeys-harness.js';
import { challenged, post } from './signed-return.js';
import { held, paidIn, postNotify } from './support.js';

const fakeRefund = (id: string, amount: string): Record<string, string> => ({ webhooks_type: 'refund', payment_status: '3100', refund_reference_id: id, refund_amount: amount });

describe('refunds, chargebacks and codes in a signed body (default options)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('a refund the gateway does not list is not recorded: paid, partly refunded, refunded and charged-back orders', async () => {
    const refund = async (orderNo: string, tx: string, amount: number): Promise<void> => {
      const [done] = await h.kit.client.batch.refund([{ transaction_id: tx, order_no: orderNo, currency: 'USD', amount: 2500, refund_amount: amount }]);
      expect(done?.ok).toBe(true);
    };
    const cases: { name: string; prepare: (orderNo: string, transactionId: string) => Promise<void>; refunded: number }[] = [
      { name: 'paid', prepare: () => Promise.resolve(), refunded: 0 },
      { name: 'partly refunded', prepare: (orderNo, tx) => refund(orderNo, tx, 500), refunded: 500 },
      { name: 'refunded', prepare: (orderNo, tx) => refund(orderNo, tx, 2500), refunded: 2500 },
      { name: 'charged back', prepare: async (_orderNo, tx) => { await h.control(`/transactions/${tx}/chargeback`, { reason: 'Fraud' }); }, refunded: 0 },
    ];
    for (const { name, prepare, refunded } of cases) {
      const orderNo = uniqueOrderNo('SB-REFUND');
      const { returned } = await challenged(h, orderNo, 'pass');
      const paid = await h.orderOf(orderNo);
      await prepare(orderNo, paid.transactionId ?? '');
      await h.sandbox.notifier.flush();
      const before = await h.orderOf(orderNo);
      const hooks = h.hookCount('onRefunded', orderNo);
      // Not listed by the gateway's refund search: not confirmed, so 503 and nothing recorded.
      expect(await post(h, { ...returned, ...fakeRefund(`FAKE-${name}`, '10.00') }), name).toBe(503);
      const after = await h.orderOf(orderNo);
      expect((await h.kit.store.listRefunds(paid.id)).map((r) => r.referenceId), name).not.toContain(`FAKE-${name}`);
      expect({ state: after.state, refundedAmount: after.refundedAmount }, name).toEqual({ state: before.state, refundedAmount: refunded });
      expect(h.hookCount('onRefunded', orderNo), name).toBe(hooks);
    }
  });

  it("a chargeback's reason comes only with a chargeback the gateway confirms, and the first stays", async () => {
    const orderNo = uniqueOrderNo('SB-CB');
    const { returned } = await challenged(h, orderNo, 'pass');
    const claim = { ...returned, webhooks_type: 'chargeback', payment_status: '7000', chargeback_reason: 'Call +1 555 0100' };
    await post(h, claim);
    const paid = await h.orderOf(orderNo);
    expect(paid.state).toBe('paid');
    expect(JSON.stringify(paid.data)).not.toMatch(/555 0100/);
    await h.control(`/transactions/${paid.transactionId ?? ''}/chargeback`, { reason: 'Fraudulent transaction' });
    await h.sandbox.notifier.flush();
    expect(await post(h, claim)).toBe(200);
    const after = await h.orderOf(orderNo);
    expect(after).toMatchObject({ state: 'chargeback', data: { chargebackReason: 'Fraudulent transaction' } });
    expect(h.hookCount('onChargeback', orderNo)).toBe(1);
  });

  it("a code made up before the gateway's own refusal notification never displaces it", async () => {
    const orderNo = uniqueOrderNo('SB-CODE');
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo });
    // The gateway's own notifications are held back (dropped, then posted below): the shopper's post comes first.
    const { returned } = await challenged(h, orderNo, 'fail');
    expect(await post(h, { ...returned, webhooks_type: 'payment', result_info: 'CALL15550100:x' })).toBe(200);
    const dropped = h.sandbox.ledger.notifications().filter((n) => n.orderNo === orderNo && n.status === 'dropped');
    expect(dropped.length).toBeGreaterThan(0);
    for (const n of dropped) expect(await post(h, n.fields)).toBe(200);
    expect((await h.orderOf(orderNo)).data).toMatchObject({ resultCode: '0201', resultText: '3-D Secure authentication failed' });
  });

  it('20 other amounts for a refund the ledger holds raise nothing; a genuine difference later is flagged and told', async () => {
    const orderNo = uniqueOrderNo('SB-CROWD');
    const { returned } = await challenged(h, orderNo, 'pass');
    const paid = await h.orderOf(orderNo);
    const [done] = await h.kit.client.batch.refund([{ transaction_id: paid.transactionId ?? '', order_no: orderNo, currency: 'USD', amount: 2500, refund_amount: 500 }]);
    expect(done?.ok).toBe(true);
    await h.sandbox.notifier.flush();
    const refunded = await h.orderOf(orderNo);
    expect(refunded).toMatchObject({ state: 'partially_refunded', refundedAmount: 500, attention: null });
    const [row] = await h.kit.store.listRefunds(paid.id);
    const reference = row?.referenceId ?? '';
    // The held reference with other amounts: outside the signature, so nothing the gateway said.
    // Past the quiet run (ten records), a post reusing the last answer gets 503 rather than a 200 it could not check.
    for (let i = 1; i <= 20; i++) {
      const status = await post(h, { ...returned, ...fakeRefund(reference, `${String(i)}.01`) });
      if (i <= 10) expect(status).toBe(200);
      else expect([200, 503]).toContain(status);
    }
    expect(await h.orderOf(orderNo)).toMatchObject({ state: 'partially_refunded', refundedAmount: 500, attention: null });
    expect(h.hookCount('onAttention', orderNo)).toBe(0);
    // Then the gateway itself reports another amount for that refund: staff must hear of it.
    const ledger = h.sandbox.ledger;
    if (!(ledger instanceof LedgerStore)) throw new Error('the sandbox ledger is not a LedgerStore');
    const gatewayRow = ledger.refunds().find((r) => r.orderNo === orderNo);
    if (gatewayRow === undefined) throw new Error('no gateway refund');
    ledger.refundRows.put(gatewayRow.refundReferenceId, { ...gatewayRow, refundAmount: 700 });
    // The 20 posts filled the order's quiet run, so for RECENT_ANSWER_MS they reuse the gateway's
    // last answer. After that, any post with an amount not seen before makes the kit ask the
    // gateway again: its refund search decides.
    await sleep(RECENT_ANSWER_MS);
    expect(await post(h, { ...returned, ...fakeRefund(reference, '6.00') })).toBe(200);
    const flagged = await h.orderOf(orderNo);
    expect(flagged.attention).toMatch(/reported as 700 USD, the refund ledger holds 500/);
    expect(flagged.refundedAmount).toBe(500);
    expect(h.hookCount('onAttention', orderNo)).toBe(1);
  });

  it('200 unrecognised variations flag the order once and add at most eleven events; a genuine refund after them applies once', async () => {
    const orderNo = uniqueOrderNo('SB-UNREC');
    const { returned } = await challenged(h, orderNo, 'pass');
    const paid = await h.orderOf(orderNo);
    const before = (await h.kit.store.listEvents(paid.id)).length;
    for (let i = 0; i < 200; i++) expect(await post(h, { ...returned, webhooks_type: `x${String(i)}` })).toBe(200);
    const flagged = await h.orderOf(orderNo);
    // One attention event (a real change), then at most ten records of nothing.
    expect((await h.kit.store.listEvents(paid.id)).length - before).toBeLessThanOrEqual(11);
    expect(flagged.version).toBe(paid.version + 1);
    expect(flagged.attention).not.toMatch(/x1/);
    expect(h.hookCount('onAttention', orderNo)).toBe(1);
    await h.kit.client.batch.refund([{ transaction_id: paid.transactionId ?? '', order_no: orderNo, currency: 'USD', amount: 2500, refund_amount: 500 }]);
    await h.sandbox.notifier.flush();
    expect(await h.orderOf(orderNo)).toMatchObject({ state: 'partially_refunded', refundedAmount: 500 });
    expect(h.hookCount('onRefunded', orderNo)).toBe(1);
  });
});

describe('an authorised order (manual capture, default options)', () => {
  let shop: Shop;
  beforeAll(async () => {
    shop = await startShop({ captureMode: 'manual', notifyTimeScale: 0.00001 });
    shop.sandbox.faults.add({ kind: 'dropNotification' });
  });
  afterAll(async () => {
    await shop.close();
  });

  it('capture, refund and cancel claims in its signed body change nothing and call no hook', async () => {
    const orderNo = `SB-MANUAL-${Date.now().toString(36)}`;
    const order = await paidIn(shop, orderNo, 2500);
    expect(order.state).toBe('authorized');
    await shop.sandbox.notifier.flush();
    const signed = held(shop, orderNo).at(-1);
    expect(signed).toBeDefined();
    await postNotify(shop, { ...signed, webhooks_type: 'capture', payment_status: '3000' });
    await postNotify(shop, { ...signed, ...fakeRefund('FAKE-AUTH', '25.00'), payment_status: '4100' });
    await postNotify(shop, { ...signed, webhooks_type: 'cancel', payment_status: '6000' });
    const after = await shop.kit.store.get(order.id);
    expect(after).toMatchObject({ state: 'authorized', capturedAmount: 0, refundedAmount: 0 });
    expect(await shop.kit.store.listRefunds(order.id)).toHaveLength(0);
    const hooks = shop.hookCalls.filter((c) => c.orderNo === orderNo).map((c) => c.hook);
    expect(hooks).not.toContain('onPaid');
    expect(hooks).not.toContain('onRefunded');
  });
});
