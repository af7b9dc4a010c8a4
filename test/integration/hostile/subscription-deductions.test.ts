/**
 * Hostile: subscription deductions against the sandbox's schedule. Attacked here:
 * - deduction notifications dropped, then every one posted many times over in shuffled order
 *   while two sweeper rounds read `subscription_result` at the same time;
 * - a deduction charged while its notification is lost, then the subscription cancelled by staff
 *   before the sweeper ran: the sweeper must still record the charge the gateway made.
 * - staff refunding part of a deduction from its own order page, its notification delivered.
 * Invariant: one child order per deduction the sandbox charged, with the sandbox's amount and
 * outcome; `onRecurringCharge` once per deduction, with one eventId each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecurringCharge } from '../../../server/orders/hooks.js';
import type { Order } from '../../../server/orders/types.js';
import { cardPayment } from '../../reliability/support/orders.js';
import { Staff } from '../../reliability/support/refund-race.js';
import { recordingHooks } from '../../reliability/support/shop-app.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { APPROVE, held, postNotify } from './support.js';

let shop: Shop;
const charges: { parent: string; deduction: string; status: string; eventId: string; amount: number }[] = [];

beforeAll(async () => {
  shop = await startShop({
    admin: true,
    notifyTimeScale: 0.00001,
    kit: {
      hooks: {
        ...recordingHooks(() => undefined),
        onRecurringCharge: (charge: RecurringCharge) => {
          charges.push({ parent: charge.parent.orderNo, deduction: charge.deduction.orderNo, status: charge.status, eventId: charge.eventId, amount: charge.deduction.amount });
        },
      },
    },
  });
});
afterAll(async () => {
  await shop.close();
});

const uniq = (): string => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function subscribed(orderNo: string): Promise<Order> {
  const { orderId } = await shop.createOrder(orderNo, 1_200);
  const body = {
    ...cardPayment(orderNo, 1_200, APPROVE, shop.kit.context.urls.notify()),
    subscription: { contract_name: 'Tea club', contract_amount: 950, interval: 'month', interval_count: '1' },
  };
  const paid = await shop.kit.client.payments.authorise(body, { timeoutMs: 30_000 });
  await shop.kit.engine.apply({ orderId, source: 'pay', outcome: paid.outcome, transactionId: paid.transactionId, amount: paid.amount, currency: paid.currency });
  // The query names the subscription (recurring_id) on the first payment.
  await shop.kit.engine.confirm(orderId, 'admin', 'staff');
  const order = (await shop.kit.store.get(orderId))!;
  expect(order.state).toBe('paid');
  expect(order.data.recurringId).toMatch(/^RC/);
  return order;
}

function deductionsAtGateway(orderNo: string) {
  return shop.sandbox.ledger.transactions().filter((t) => t.orderNo === orderNo && t.deductionOf !== undefined);
}

async function expectMatchesGateway(parent: Order): Promise<void> {
  const children = (await shop.kit.store.listChildren?.(parent.id)) ?? [];
  const atGateway = deductionsAtGateway(parent.orderNo);
  expect(atGateway.length).toBeGreaterThan(0);
  expect(children.map((c) => c.transactionId).sort()).toEqual(atGateway.map((t) => t.transactionId).sort());
  for (const tx of atGateway) {
    const child = children.find((c) => c.transactionId === tx.transactionId)!;
    expect(child.amount).toBe(tx.amount);
    expect(child.state).toBe(tx.capturedAmount > 0 ? 'paid' : 'declined');
    const owed = charges.filter((c) => c.deduction === child.orderNo);
    expect(owed).toHaveLength(1);
  }
  expect(new Set(charges.map((c) => c.eventId)).size).toBe(charges.length);
}

describe('subscription deductions raced and lost', () => {
  it('three deductions, notifications held then posted many times shuffled while two sweeper rounds run', async () => {
    const parent = await subscribed(`SUBR-${uniq()}`);
    shop.sandbox.faults.add({ kind: 'dropNotification', orderNo: parent.orderNo });
    shop.sandbox.clock.advance({ months: 1, days: 1 });
    shop.sandbox.subscriptions.failNext(String(parent.data.recurringId));
    shop.sandbox.clock.advance({ months: 1 });
    shop.sandbox.clock.advance({ months: 1 });
    await shop.sandbox.notifier.flush();
    const notes = held(shop, parent.orderNo).filter((f) => f.transaction_id !== parent.transactionId);
    expect(notes.length).toBeGreaterThanOrEqual(3);
    const copies = [...notes, ...notes, ...notes, ...notes].sort(() => Math.random() - 0.5);
    const statuses = await Promise.all([
      ...copies.map((f) => postNotify(shop, f)),
      shop.kit.sweeper.runOnce().then(() => 200),
      shop.kit.sweeper.runOnce().then(() => 200),
    ]);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    // Whatever was answered 503 comes again, as the gateway would resend it.
    for (const f of notes) expect(await postNotify(shop, f)).toBe(200);
    await expectMatchesGateway(parent);
  });

  it('a deduction whose notification is lost, then the subscription cancelled before the sweeper ran: still recorded', async () => {
    const parent = await subscribed(`SUBC-${uniq()}`);
    shop.sandbox.faults.add({ kind: 'dropNotification', orderNo: parent.orderNo });
    shop.sandbox.clock.advance({ months: 1, days: 1 });
    await shop.sandbox.notifier.flush();
    expect(deductionsAtGateway(parent.orderNo)).toHaveLength(1);

    const staff = new Staff(shop, 'subc');
    await staff.get('/subscriptions/cancel');
    const res = await staff.post('/subscriptions/cancel', { recurring_id: String(parent.data.recurringId), contract_name: 'Tea club', order_no: parent.orderNo });
    expect(res.status).toBe(200);
    expect((await shop.kit.store.get(parent.id))!.data.subscriptionStatus).toBe('cancelled');

    await shop.kit.sweeper.runOnce();
    await expectMatchesGateway(parent);
    // Cancelled stays cancelled: no further deduction is charged, and the shop still says so.
    shop.sandbox.clock.advance({ months: 2 });
    expect(deductionsAtGateway(parent.orderNo)).toHaveLength(1);
    await shop.kit.sweeper.runOnce();
    expect((await shop.kit.store.get(parent.id))!.data.subscriptionStatus).toBe('cancelled');
  });

  it('a deduction refunded in part at the gateway (the portal): its order records it, the first payment untouched', async () => {
    const parent = await subscribed(`SUBP-${uniq()}`);
    shop.sandbox.clock.advance({ months: 1, days: 1 });
    await shop.sandbox.notifier.flush();
    const [child] = (await shop.kit.store.listChildren?.(parent.id)) ?? [];
    expect(child?.state).toBe('paid');
    const [r] = await shop.kit.client.batch.refund([{ transaction_id: child!.transactionId!, order_no: parent.orderNo, currency: 'USD', amount: child!.amount, refund_amount: 500 }]);
    expect(r?.ok).toBe(true);
    await shop.sandbox.notifier.flush();
    for (const f of held(shop, parent.orderNo)) await postNotify(shop, f);
    await shop.kit.sweeper.runOnce();
    const tx = shop.sandbox.ledger.transactions().find((t) => t.transactionId === child!.transactionId)!;
    expect(tx.refundedAmount).toBe(500);
    const childNow = (await shop.kit.store.get(child!.id))!;
    const parentNow = (await shop.kit.store.get(parent.id))!;
    expect(parentNow.state).toBe('paid');
    expect(parentNow.attention).toBeNull();
    expect(childNow.attention).toBeNull();
    expect(childNow.state).toBe('partially_refunded');
    expect(parentNow.refundedAmount).toBe(0);
    expect(parentNow.transactionId).toBe(parent.transactionId);
    expect(childNow.refundedAmount).toBe(tx.refundedAmount);
  });

  it('staff refund part of a deduction: the deduction\'s order is refunded as at the gateway, the first payment untouched', async () => {
    const parent = await subscribed(`SUBF-${uniq()}`);
    shop.sandbox.clock.advance({ months: 1, days: 1 });
    await shop.sandbox.notifier.flush();
    const [child] = (await shop.kit.store.listChildren?.(parent.id)) ?? [];
    expect(child?.state).toBe('paid');
    const staff = new Staff(shop, 'subf');
    await staff.get(`/orders/${child!.id}`);
    const res = await staff.post(`/orders/${child!.id}/refund`, { refund_amount: '5.00' });
    expect(res.status).toBe(303);
    await shop.sandbox.notifier.flush();
    for (const f of held(shop, parent.orderNo)) await postNotify(shop, f);
    await shop.kit.sweeper.runOnce();

    const tx = shop.sandbox.ledger.transactions().find((t) => t.transactionId === child!.transactionId)!;
    const parentTx = shop.sandbox.ledger.transaction(parent.orderNo);
    const childNow = (await shop.kit.store.get(child!.id))!;
    const parentNow = (await shop.kit.store.get(parent.id))!;
    expect(tx.refundedAmount).toBe(500);
    expect(childNow.refundedAmount).toBe(tx.refundedAmount);
    expect(childNow.state).toBe('partially_refunded');
    expect(parentNow.refundedAmount).toBe(shop.sandbox.ledger.transactions().find((t) => t.transactionId === parent.transactionId)!.refundedAmount);
    expect(parentNow.state).toBe('paid');
    expect(parentNow.attention).toBeNull();
    expect(childNow.attention).toBeNull();
    expect(parentNow.transactionId).toBe(parent.transactionId);
    expect(parentTx).toBeDefined();
    // A query sync of either order keeps each refund where it belongs.
    await shop.kit.engine.confirm(parent.id, 'admin', 'staff');
    await shop.kit.engine.confirm(child!.id, 'admin', 'staff');
    expect((await shop.kit.store.get(parent.id))!.refundedAmount).toBe(0);
    expect((await shop.kit.store.listRefunds(parent.id))).toEqual([]);
    expect((await shop.kit.store.get(child!.id))!.refundedAmount).toBe(500);
  });
});
