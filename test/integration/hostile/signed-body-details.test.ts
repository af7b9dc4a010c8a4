/**
 * A shopper's signed return body posted to /notify with unsigned details changed (default
 * options): subscription fields and a card never reach the order from the claim, only from the
 * gateway's answer; a refund made before a chargeback is recorded whichever is notified first;
 * guessed refund references and respellings of a listed refund's amount record nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, uniqueOrderNo, type Harness } from '../checkout/journeys-harness.js';
import { challenged, post } from './signed-return.js';

const asPayment = (returned: Record<string, string>, extra: Record<string, string>): Record<string, string> => ({ ...returned, webhooks_type: 'payment', payment_status: '3000', ...extra });

describe('details in a signed body (default options)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('subscription fields (recurring_id, contract_name) in a paid body do not reach a one-off order', async () => {
    const orderNo = uniqueOrderNo('P-RECUR');
    const { returned } = await challenged(h, orderNo, 'pass');
    const paid = await h.orderOf(orderNo);
    expect(paid.state).toBe('paid');
    expect(paid.data.recurringId).toBeUndefined();
    expect(await post(h, asPayment(returned, { recurring_id: 'EVIL-SUB-1', contract_name: 'Call +1 555 0100 to claim a refund', recurring_deduction_period: '1 day', result_info: '0000:Success.' }))).toBe(200);
    const after = await h.orderOf(orderNo);
    expect(after.data.recurringId).toBeUndefined();
    expect(JSON.stringify(after.data)).not.toMatch(/555 0100/);
    expect(after.version).toBe(paid.version);
  });

  it('a one-off order does not become a live subscription (admin list, sweeper) through a posted recurring_id', async () => {
    const orderNo = uniqueOrderNo('P-RECUR-LIST');
    const { returned } = await challenged(h, orderNo, 'pass');
    const paid = await h.orderOf(orderNo);
    await post(h, asPayment(returned, { recurring_id: 'EVIL-LIVE', result_info: '0000:Success!' }));
    const listed = (await h.kit.store.listSubscriptions?.({ limit: 1000 })) ?? [];
    expect(listed.map((o) => o.id)).not.toContain(paid.id);
  });

  it('distinct unsigned subscription fields do not grow the order\'s events without bound', async () => {
    const orderNo = uniqueOrderNo('P-RECUR-GROW');
    const { returned } = await challenged(h, orderNo, 'pass');
    const paid = await h.orderOf(orderNo);
    const before = (await h.kit.store.listEvents(paid.id)).length;
    for (let i = 0; i < 40; i++) await post(h, asPayment(returned, { recurring_id: `R${String(i)}`, result_info: `0000:S${String(i)}` }));
    const events = await h.kit.store.listEvents(paid.id);
    expect(events.length - before).toBeLessThanOrEqual(11);
  });

  it("the masked card on the order is not replaced by the card field of the shopper's post that moves it", async () => {
    const orderNo = uniqueOrderNo('P-CARD');
    const { returned } = await challenged(h, orderNo, 'pass');
    const paid = await h.orderOf(orderNo);
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo });
    await h.control(`/transactions/${paid.transactionId ?? ''}/chargeback`, { reason: 'Fraudulent transaction' });
    await h.sandbox.notifier.flush();
    expect(await post(h, { ...returned, webhooks_type: 'chargeback', payment_status: '7000', card: '999999******0000' })).toBe(200);
    const after = await h.orderOf(orderNo);
    expect(after.maskedCard).toBe(paid.maskedCard);
  });

  it('a refund made at the gateway before a chargeback, notified after the chargeback notification, is recorded', async () => {
    const orderNo = uniqueOrderNo('P-REF-CB');
    await challenged(h, orderNo, 'pass');
    const paid = await h.orderOf(orderNo);
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo });
    const [done] = await h.kit.client.batch.refund([{ transaction_id: paid.transactionId ?? '', order_no: orderNo, currency: 'USD', amount: 2500, refund_amount: 500 }]);
    expect(done?.ok).toBe(true);
    await h.control(`/transactions/${paid.transactionId ?? ''}/chargeback`, { reason: 'Fraudulent transaction' });
    await h.sandbox.notifier.flush();
    const dropped = h.sandbox.ledger.notifications().filter((n) => n.orderNo === orderNo && n.status === 'dropped');
    const refundNote = dropped.find((n) => n.fields.refund_reference_id !== undefined);
    const cbNote = dropped.find((n) => n.fields.webhooks_type === 'chargeback');
    expect(refundNote && cbNote).toBeTruthy();
    // Out of order, as the gateway's notes say is normal: the chargeback first.
    expect(await post(h, cbNote!.fields)).toBe(200);
    // The gateway's refund search lists the refund under the charged-back order: recorded at once, once.
    expect(await post(h, refundNote!.fields)).toBe(200);
    expect(await post(h, refundNote!.fields)).toBe(200);
    await h.kit.engine.confirm(paid.id, 'admin', 'staff');
    expect(await h.orderOf(orderNo)).toMatchObject({ state: 'chargeback', refundedAmount: 500 });
    expect((await h.kit.store.listRefunds(paid.id)).map((r) => [r.referenceId, r.amount, r.status])).toEqual([[refundNote!.fields.refund_reference_id, 500, 'succeeded']]);
  });

  it('a guessed future refund reference posted early is not recorded and does not stop the genuine notification', async () => {
    const orderNo = uniqueOrderNo('P-HELD-PREEMPT');
    const { returned } = await challenged(h, orderNo, 'pass');
    const paid = await h.orderOf(orderNo);
    const ref = `${paid.transactionId ?? ''}-01`;
    for (const amount of ['5.00', '5', '5.0']) expect(await post(h, { ...returned, webhooks_type: 'refund', payment_status: '3100', refund_reference_id: ref, refund_amount: amount })).toBe(503);
    expect(await h.kit.store.listRefunds(paid.id)).toHaveLength(0);
    const [done] = await h.kit.client.batch.refund([{ transaction_id: paid.transactionId ?? '', order_no: orderNo, currency: 'USD', amount: 2500, refund_amount: 500 }]);
    expect(done?.ok).toBe(true);
    await h.sandbox.notifier.flush();
    expect(await h.orderOf(orderNo)).toMatchObject({ state: 'partially_refunded', refundedAmount: 500 });
    expect(h.hookCount('onRefunded', orderNo)).toBe(1);
  });

  it('a listed refund posted 30 times under 11 spellings of its amount adds at most ten events and no attention', async () => {
    const orderNo = uniqueOrderNo('P-HELD-SPELL');
    const { returned } = await challenged(h, orderNo, 'pass');
    const paid = await h.orderOf(orderNo);
    await h.kit.client.batch.refund([{ transaction_id: paid.transactionId ?? '', order_no: orderNo, currency: 'USD', amount: 2500, refund_amount: 500 }]);
    await h.sandbox.notifier.flush();
    const [row] = await h.kit.store.listRefunds(paid.id);
    const before = (await h.kit.store.listEvents(paid.id)).length;
    for (let i = 0; i < 30; i++) await post(h, { ...returned, webhooks_type: 'refund', payment_status: '3100', refund_reference_id: row?.referenceId ?? '', refund_amount: `${'0'.repeat(i % 11)}5.00` });
    const evs = await h.kit.store.listEvents(paid.id);
    expect(evs.length - before).toBeLessThanOrEqual(10);
    expect(await h.orderOf(orderNo)).toMatchObject({ refundedAmount: 500, attention: null });
  });
});
