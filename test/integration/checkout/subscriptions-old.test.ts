/**
 * The sweeper finds a lost deduction of a subscription however old it is: with a page of two
 * subscriptions per run and more newer paid orders than that after it, the first subscription's
 * deduction, whose notification was dropped, is recorded within as many runs as the subscriptions
 * fill pages, once, through the real SQLite store and the sandbox over HTTP.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Order } from '../../../server/orders/types.js';
import { Browser, CARD, cardFields, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness } from './journeys-harness.js';

let h: Harness;
const charges: { parent: string; status: string }[] = [];

beforeAll(async () => {
  h = await startHarness({
    sweeper: { enabled: false, subscriptionScanLimit: 2 },
    hooks: {
      onRecurringCharge: (charge) => {
        charges.push({ parent: charge.parent.orderNo, status: charge.status });
      },
    },
  });
});
afterAll(async () => {
  await h.close();
});

async function pay(orderNo: string, subscription: boolean): Promise<Order> {
  const browser = new Browser();
  const { payUrl } = await h.kit.createPayment({
    ...paymentInput(orderNo),
    ...(subscription ? { subscription: { contract_name: 'Tea club', contract_amount: 950, interval: 'month', interval_count: '1' } } : {}),
  });
  const page = await browser.get(payUrl);
  await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
  await h.sandbox.notifier.flush();
  const order = await h.orderOf(orderNo);
  expect(order.state).toBe('paid');
  return order;
}

it('records a lost deduction of the oldest subscription, behind more newer orders than one run looks at, once', async () => {
  const oldest = await pay(uniqueOrderNo('SUB-OLD'), true);
  for (let i = 0; i < 4; i++) await pay(uniqueOrderNo('PLAIN'), false);
  const newer = [await pay(uniqueOrderNo('SUB-NEW'), true), await pay(uniqueOrderNo('SUB-NEW'), true)];

  h.sandbox.faults.add({ kind: 'dropNotification', orderNo: oldest.orderNo, times: 1 });
  h.sandbox.clock.advance({ months: 1, days: 1 });
  await h.sandbox.notifier.flush();
  const children = async (o: Order): Promise<Order[]> => (await h.kit.store.listChildren?.(o.id)) ?? [];
  expect(await children(oldest)).toEqual([]);
  for (const o of newer) expect((await children(o)).map((c) => c.state)).toEqual(['paid']);

  // Three live subscriptions, two per run: two runs reach every one of them, and a third starts over.
  const checked: number[] = [];
  for (let run = 0; run < 3; run++) checked.push((await h.kit.sweeper.runOnce()).subscriptions?.checked ?? 0);
  expect(checked).toEqual([2, 1, 2]);
  const recovered = await children(oldest);
  expect(recovered.map((c) => [c.state, c.amount, c.data.recurringId])).toEqual([['paid', 950, oldest.data.recurringId]]);
  // The gateway's record: the one deduction it made is the one the shop holds.
  const deductions = h.sandbox.ledger.transactions().filter((t) => t.orderNo === oldest.orderNo && t.deductionOf !== undefined);
  expect(deductions.map((t) => [t.transactionId, t.amount])).toEqual(recovered.map((c) => [c.transactionId, c.amount]));
  expect(charges.filter((c) => c.parent === oldest.orderNo)).toEqual([{ parent: oldest.orderNo, status: 'paid' }]);
  for (const o of newer) expect(await children(o)).toHaveLength(1);
});
