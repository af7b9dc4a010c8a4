/**
 * The refund ledger end to end over real HTTP: staff refunds posted at once to the admin, the
 * in-process sandbox as the gateway, its refund notifications replayed to the shop shuffled and
 * repeated; a refund whose answer was lost, settled by the sweeper's refund search; a pending
 * refund the gateway never made, failed after the grace period.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reserveRefund } from '../../../server/admin/gateway-actions.js';
import { createGatewayPort } from '../../../server/checkout/gateway-port.js';
import { refundableOf } from '../../../server/orders/engine-refunds.js';
import { createSweeper } from '../../../server/orders/sweeper.js';
import { paidOrder, raceRefunds, refundProblems, slowRefundAnswers, Staff } from '../../reliability/support/refund-race.js';
import { createRng } from '../../reliability/support/rng.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';

let shop: Shop;
const rng = createRng(118);
beforeAll(async () => {
  shop = await startShop({ admin: true, notifyTimeScale: 0.00001, kit: { fetch: slowRefundAnswers(createRng(47), 30) } });
  // Every notification is held back by the sandbox; the tests post them to the shop themselves.
  shop.sandbox.faults.add({ kind: 'dropNotification' });
});
afterAll(async () => {
  await shop.close();
});

let n = 0;
const orderNo = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${String(++n)}`;

function refundSweeper() {
  return createSweeper({
    engine: shop.kit.engine, store: shop.kit.store, gateway: createGatewayPort(shop.kit.client),
    stuckAfterMs: 60_000, expireAfterMs: 120_000, refundSettleAfterMs: 1, refundFailAfterMs: 1,
  });
}

describe('staff refunds raced with their notifications', () => {
  it('118.00 and ten refunds of 47.20 at once: two made, the shop says 94.40 partially refunded, 23.60 still refundable', async () => {
    const order = await paidOrder(shop, orderNo('RACE'), 11_800);
    const race = await raceRefunds(shop, order, '47.20', 10, 3, rng);
    expect(race.statuses.filter((s) => s === 303)).toHaveLength(2);
    // The others were refused before anything was sent: no more than remains.
    expect(race.statuses.filter((s) => s === 400)).toHaveLength(8);
    expect(race.notificationErrors).toEqual([]);
    const tx = shop.sandbox.ledger.transaction(order.orderNo)!;
    expect(tx.refundedAmount).toBe(9_440);
    expect(await refundProblems(shop, order.orderNo)).toEqual([]);
    const stored = (await shop.kit.store.get(order.id))!;
    expect(stored).toMatchObject({ state: 'partially_refunded', refundedAmount: 9_440, attention: null });
    const rows = await shop.kit.store.listRefunds(order.id);
    expect(rows.map((r) => [r.referenceId, r.amount, r.status]).sort()).toEqual([
      [`${tx.transactionId}-01`, 4_720, 'succeeded'],
      [`${tx.transactionId}-02`, 4_720, 'succeeded'],
    ]);
    expect(refundableOf(stored, rows)).toBe(2_360);

    // The order page lists the rows and still offers the rest.
    const staff = new Staff(shop, 'closer');
    const page = await staff.get(`/orders/${order.id}`);
    expect(page.text).toContain(`${tx.transactionId}-01`);
    expect(page.text).toContain(`${tx.transactionId}-02`);
    expect(page.text).toContain('value="23.60"');
    expect((await staff.post(`/orders/${order.id}/refund`, { refund_amount: '23.60' })).status).toBe(303);
    expect(await shop.kit.store.get(order.id)).toMatchObject({ state: 'refunded', refundedAmount: 11_800 });
    expect(shop.sandbox.ledger.transaction(order.orderNo)!.refundedAmount).toBe(11_800);
    expect(await refundProblems(shop, order.orderNo)).toEqual([]);
    // onRefunded once per stored move (two refunds may arrive in one move by the confirming query).
    const moves = (await shop.kit.store.listEvents(order.id)).filter((e) => e.type === 'transition' && (e.toState === 'partially_refunded' || e.toState === 'refunded'));
    expect(moves.length).toBeGreaterThanOrEqual(2);
    expect(shop.hookCalls.filter((c) => c.hook === 'onRefunded' && c.orderNo === order.orderNo)).toHaveLength(moves.length);
  });

  it('three orders raced side by side, notifications three times each: every total equals the gateway\'s', async () => {
    const orders = await Promise.all([9_999, 5_000, 30_001].map((amount) => paidOrder(shop, orderNo('RACE3'), amount)));
    await Promise.all(orders.map((o) => raceRefunds(shop, o, (Math.floor(o.amount / 3) / 100).toFixed(2), 10, 3, rng)));
    for (const o of orders) expect(await refundProblems(shop, o.orderNo)).toEqual([]);
    for (const o of orders) expect(shop.sandbox.ledger.refunds().filter((r) => r.orderNo === o.orderNo)).toHaveLength(3);
  });
});

describe('refunds whose answer never came', () => {
  it('a lost answer leaves a pending row that counts against the refundable amount; the sweeper settles it by refund search', async () => {
    const order = await paidOrder(shop, orderNo('LOST'), 4_000);
    shop.sandbox.faults.add({ kind: 'reset', operation: 'refund', orderNo: order.orderNo, times: 1 });
    const staff = new Staff(shop);
    await staff.get(`/orders/${order.id}`);
    const res = await staff.post(`/orders/${order.id}/refund`, { refund_amount: '15.00' });
    expect(res.status).toBe(303);
    const flash = await staff.get(res.location.replace(/^\/admin/, ''));
    expect(flash.text).toContain('The refund stays pending');
    // The gateway made it; the shop does not know its reference yet.
    const tx = shop.sandbox.ledger.transaction(order.orderNo)!;
    expect(tx.refundedAmount).toBe(1_500);
    const pending = await shop.kit.store.listRefunds(order.id);
    expect(pending).toEqual([expect.objectContaining({ status: 'pending', referenceId: null, amount: 1_500, source: 'admin' })]);
    const before = (await shop.kit.store.get(order.id))!;
    expect(before).toMatchObject({ state: 'paid', refundedAmount: 0 });
    expect(refundableOf(before, pending)).toBe(2_500);
    // Staff cannot refund the pending amount a second time.
    await staff.get(`/orders/${order.id}`);
    expect((await staff.post(`/orders/${order.id}/refund`, { refund_amount: '25.01' })).status).toBe(400);

    await sleep(5);
    const report = await refundSweeper().runOnce();
    expect(report.refunds).toMatchObject({ orders: 1, settled: 1, failed: 0, errors: 0 });
    const rows = await shop.kit.store.listRefunds(order.id);
    expect(rows).toEqual([expect.objectContaining({ id: pending[0]!.id, status: 'succeeded', referenceId: `${tx.transactionId}-01`, amount: 1_500 })]);
    expect(await shop.kit.store.get(order.id)).toMatchObject({ state: 'partially_refunded', refundedAmount: 1_500 });
    // Its notification, replayed late, changes nothing.
    const version = (await shop.kit.store.get(order.id))!.version;
    const held = shop.sandbox.ledger.notifications().filter((x) => x.orderNo === order.orderNo && x.fields.refund_reference_id !== undefined);
    for (const x of held) {
      const answer = await fetch(shop.kit.context.urls.notify(), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(x.fields).toString() });
      expect(answer.status).toBe(200);
    }
    expect(await shop.kit.store.get(order.id)).toMatchObject({ refundedAmount: 1_500, state: 'partially_refunded' });
    expect((await shop.kit.store.listRefunds(order.id))).toHaveLength(1);
    expect((await shop.kit.store.get(order.id))!.version).toBeGreaterThanOrEqual(version);
    expect(await refundProblems(shop, order.orderNo)).toEqual([]);
  });

  it('a pending refund the gateway never made becomes failed after the grace period, freeing its amount', async () => {
    const order = await paidOrder(shop, orderNo('NEVER'), 3_000);
    // As if the process died between writing the pending row and sending the refund.
    const reserved = await reserveRefund(shop.kit.engine, order, 1_000, 'staff');
    expect('id' in reserved).toBe(true);
    expect(refundableOf(order, await shop.kit.store.listRefunds(order.id))).toBe(2_000);
    await sleep(5);
    const report = await refundSweeper().runOnce();
    expect(report.refunds).toMatchObject({ orders: 1, settled: 0, failed: 1, errors: 0 });
    const rows = await shop.kit.store.listRefunds(order.id);
    expect(rows).toEqual([expect.objectContaining({ status: 'failed', amount: 1_000, referenceId: null })]);
    const after = (await shop.kit.store.get(order.id))!;
    expect(after).toMatchObject({ state: 'paid', refundedAmount: 0 });
    expect(refundableOf(after, rows)).toBe(3_000);
    // A second run finds nothing pending.
    expect((await refundSweeper().runOnce()).refunds).toBeUndefined();
  });
});
