/**
 * Partial-refund notifications over real HTTP: each names one refund (its reference and amount),
 * recorded as one row of the order's refund ledger, and the refunded amount is derived from the
 * rows, so two notifications handled at the same time both count and a repeated one counts once.
 * Real refunds in the sandbox; their notifications held back, then posted together.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyOutcome } from '../../../server/admin/gateway-actions.js';
import {
  Browser, CARD, cardFields, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness,
} from './journeys-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => {
  h.sandbox.faults.clear();
});
afterAll(async () => {
  await h.close();
});

const post = (fields: Record<string, string>): Promise<Response> =>
  fetch(`${h.shopUrl}/checkout/notify`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

async function paidOrder(prefix: string) {
  const orderNo = uniqueOrderNo(prefix);
  h.sandbox.faults.add({ kind: 'dropNotification', orderNo });
  const { order, payUrl } = await h.kit.createPayment(paymentInput(orderNo));
  const browser = new Browser();
  const page = await browser.get(payUrl);
  await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
  const paid = await h.kit.store.get(order.id);
  expect(paid).toMatchObject({ state: 'paid', refundedAmount: 0 });
  return paid!;
}

describe('partial refund notifications', () => {
  it('two different ones handled concurrently: refundedAmount is the sum; a redelivery changes nothing', async () => {
    const order = await paidOrder('N-REFUNDS');
    for (const amount of [500, 700]) {
      const [refund] = await h.kit.client.batch.refund([
        { transaction_id: order.transactionId!, order_no: order.orderNo, currency: 'USD', amount: 2500, refund_amount: amount },
      ]);
      expect(refund?.ok).toBe(true);
    }
    await h.sandbox.notifier.flush();
    const held = h.sandbox.ledger.notifications().filter((n) => n.orderNo === order.orderNo && n.status === 'dropped' && n.fields.refund_amount !== undefined);
    expect(held.map((n) => n.fields.refund_amount).sort()).toEqual(['5.00', '7.00']);
    expect(new Set(held.map((n) => n.fields.refund_reference_id)).size).toBe(2);

    const answers = await Promise.all(held.map((n) => post(n.fields)));
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    const after = await h.kit.store.get(order.id);
    expect(after).toMatchObject({ state: 'partially_refunded', refundedAmount: 1200 });
    // The confirming query's refund search already gives the gateway's total: one move, one hook call.
    expect(h.hookCount('onRefunded', order.orderNo)).toBeGreaterThanOrEqual(1);
    const onRefunded = h.hookCount('onRefunded', order.orderNo);

    expect((await post(held[0]!.fields)).status).toBe(200);
    expect((await h.kit.store.get(order.id))!).toMatchObject({ refundedAmount: 1200, version: after!.version });
    expect(h.hookCount('onRefunded', order.orderNo)).toBe(onRefunded);
  });

  it('while the refund search fails, a refund notification is answered 503 and changes nothing; its retry is recorded', async () => {
    const order = await paidOrder('N-SEARCH-DOWN');
    const [refund] = await h.kit.client.batch.refund([
      { transaction_id: order.transactionId!, order_no: order.orderNo, currency: 'USD', amount: 2500, refund_amount: 800 },
    ]);
    expect(refund?.ok).toBe(true);
    await h.sandbox.notifier.flush();
    const held = h.sandbox.ledger.notifications().filter((n) => n.orderNo === order.orderNo && n.status === 'dropped' && n.fields.refund_amount !== undefined);
    expect(held).toHaveLength(1);
    h.sandbox.faults.add({ kind: 'http500', operation: 'retrievalRefund' });
    expect((await post(held[0]!.fields)).status).toBe(503);
    expect(await h.kit.store.get(order.id)).toMatchObject({ state: 'paid', refundedAmount: 0, attention: null, version: order.version });
    expect(await h.kit.store.listRefunds(order.id)).toEqual([]);
    h.sandbox.faults.clear();
    expect((await post(held[0]!.fields)).status).toBe(200);
    expect(await h.kit.store.get(order.id)).toMatchObject({ state: 'partially_refunded', refundedAmount: 800, attention: null });
    expect(await h.kit.store.listRefunds(order.id)).toEqual([expect.objectContaining({ referenceId: refund!.element!.refund_reference_id, amount: 800, status: 'succeeded' })]);
  });

  it('a refund staff made and its notification name one reference: counted once, whichever lands first', async () => {
    const order = await paidOrder('N-ADMIN-REFUND');
    const [refund] = await h.kit.client.batch.refund([
      { transaction_id: order.transactionId!, order_no: order.orderNo, currency: 'USD', amount: 2500, refund_amount: 600 },
    ]);
    expect(refund?.ok).toBe(true);
    const ref = refund!.element!.refund_reference_id!;
    // The admin applies its own answer first…
    const applied = await applyOutcome(h.kit.engine, order, 'refund', {
      request: { order }, ok: true, outcomeUnknown: false, status: '1', message: null,
      refundAmount: 600, refundReferenceId: ref, refundReference: null,
    }, 'staff-1');
    expect(applied.status).toBe('applied');
    // …then the gateway's notification of the same refund arrives: nothing is added.
    await h.sandbox.notifier.flush();
    const held = h.sandbox.ledger.notifications().filter((n) => n.orderNo === order.orderNo && n.fields.refund_reference_id === ref);
    expect(held).toHaveLength(1);
    expect((await post(held[0]!.fields)).status).toBe(200);
    const after = await h.kit.store.get(order.id);
    expect(after).toMatchObject({ state: 'partially_refunded', refundedAmount: 600 });
    expect(h.hookCount('onRefunded', order.orderNo)).toBe(1);
  });
});
