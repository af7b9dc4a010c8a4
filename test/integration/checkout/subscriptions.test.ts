/**
 * Subscriptions end to end over real HTTP: the shop's kit, the sandbox gateway, its clock
 * advanced through three deductions (one declined), a duplicate notification, and a cancel.
 * Each deduction is a child order of the first payment, and `onRecurringCharge` runs once per
 * deduction through the outbox; `onPaid` runs for the first payment only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecurringCharge } from '../../../server/orders/hooks.js';
import type { Order } from '../../../server/orders/types.js';
import { Browser, CARD, cardFields, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness } from './journeys-harness.js';

let h: Harness;
const charges: { parent: string; deduction: string; status: string; eventId: string; amount: number }[] = [];
const paid: string[] = [];

beforeAll(async () => {
  h = await startHarness({
    hooks: {
      onPaid: (order) => {
        paid.push(order.orderNo);
      },
      onRecurringCharge: (charge: RecurringCharge) => {
        charges.push({ parent: charge.parent.orderNo, deduction: charge.deduction.orderNo, status: charge.status, eventId: charge.eventId, amount: charge.deduction.amount });
      },
    },
  });
});
afterAll(async () => {
  await h.close();
});

async function subscribe(orderNo: string): Promise<Order> {
  const browser = new Browser();
  const { payUrl } = await h.kit.createPayment({
    ...paymentInput(orderNo),
    subscription: { contract_name: 'Tea club', contract_amount: 950, interval: 'month', interval_count: '1' },
  });
  const page = await browser.get(payUrl);
  await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
  await h.sandbox.notifier.flush();
  const parent = await h.orderOf(orderNo);
  expect(parent.state).toBe('paid');
  expect(parent.data.recurringId).toMatch(/^RC/);
  return parent;
}

async function advanceMonth(): Promise<void> {
  h.sandbox.clock.advance({ months: 1, days: 1 });
  await h.sandbox.notifier.flush();
}

const childrenOf = async (parent: Order): Promise<Order[]> => (await h.kit.store.listChildren?.(parent.id)) ?? [];

describe('subscription deductions', () => {
  it('records three deductions (one declined) as child orders, calls onRecurringCharge once each, and stops after cancel', async () => {
    const orderNo = uniqueOrderNo('SUB');
    const parent = await subscribe(orderNo);
    const recurringId = String(parent.data.recurringId);

    await advanceMonth();
    h.sandbox.subscriptions.failNext(recurringId);
    await advanceMonth();
    await advanceMonth();

    const children = await childrenOf(parent);
    expect(children.map((c) => [c.state, c.amount, c.currency, c.parentId])).toEqual([
      ['paid', 950, 'USD', parent.id],
      ['declined', 950, 'USD', parent.id],
      ['paid', 950, 'USD', parent.id],
    ]);
    const deductions = h.sandbox.ledger.transactions().filter((t) => t.recurringId === recurringId && t.deductionOf !== undefined);
    expect(children.map((c) => c.transactionId)).toEqual(deductions.map((t) => t.transactionId));
    expect(children.every((c) => c.data.recurringId === recurringId && typeof c.data.deductionTime === 'string')).toBe(true);

    const mine = charges.filter((c) => c.parent === orderNo);
    expect(mine.map((c) => [c.status, c.amount])).toEqual([['paid', 950], ['failed', 950], ['paid', 950]]);
    expect(new Set(mine.map((c) => c.eventId)).size).toBe(3);
    // The first payment's hook only; the deductions owe onRecurringCharge instead.
    expect(paid.filter((n) => n.startsWith(orderNo))).toEqual([orderNo]);
    expect((await h.orderOf(orderNo)).state).toBe('paid');

    // The gateway sends one deduction's notification twice: nothing new is recorded or called.
    const first = h.sandbox.ledger.notifications().find((n) => n.transactionId === deductions[0]?.transactionId);
    await h.control(`/notifications/${first?.id ?? ''}/twice`);
    await h.sandbox.notifier.flush();
    expect(await childrenOf(parent)).toHaveLength(3);
    expect(charges.filter((c) => c.parent === orderNo)).toHaveLength(3);
    const events = await h.kit.store.listEvents(children[0]?.id ?? '');
    expect(events.filter((e) => e.type === 'transition')).toHaveLength(1);

    const cancelled = await h.kit.client.subscriptions.cancel({ recurring_id: recurringId });
    expect(cancelled.ok).toBe(true);
    await advanceMonth();
    expect(await childrenOf(parent)).toHaveLength(3);
    expect(charges.filter((c) => c.parent === orderNo)).toHaveLength(3);
  });

  it('the sweeper reads subscription_result: records a deduction whose notification was lost, once, and the next deduction', async () => {
    const orderNo = uniqueOrderNo('SUB-SWEEP');
    const parent = await subscribe(orderNo);
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
    await advanceMonth();
    expect(await childrenOf(parent)).toEqual([]);

    const report = await h.kit.sweeper.runOnce();
    expect(report.subscriptions?.recorded).toBeGreaterThanOrEqual(1);
    const [child] = await childrenOf(parent);
    expect(child).toMatchObject({ state: 'paid', amount: 950, parentId: parent.id });
    const events = await h.kit.store.listEvents(child?.id ?? '');
    expect(events.find((e) => e.type === 'transition')?.source).toBe('sweeper');
    expect(charges.filter((c) => c.parent === orderNo).map((c) => c.status)).toEqual(['paid']);
    const updated = await h.orderOf(orderNo);
    expect(updated.data.subscriptionStatus).toBe('active');
    expect(updated.data.nextDeduction).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // The parent's own state is the first payment's: the deduction listed beside it changes nothing.
    expect(updated.state).toBe('paid');

    await h.kit.sweeper.runOnce();
    expect(await childrenOf(parent)).toHaveLength(1);
    expect(charges.filter((c) => c.parent === orderNo)).toHaveLength(1);
  });
});
