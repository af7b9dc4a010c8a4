/**
 * The sweeper's refund round on its own: pending staff refunds settled by the port's refund
 * search (by amount when the answer's reference was lost), left alone when the search fails or
 * when they are too young, failed once the grace period is over.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { reserveRefund } from '../../../server/admin/gateway-actions.js';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { GatewayPort, RefundReport } from '../../../server/orders/engine-types.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { createSweeper } from '../../../server/orders/sweeper.js';
import { makeOrder } from './fixtures.js';

function setUp(search: GatewayPort['searchRefunds'], ages: { settle?: number; fail?: number } = {}) {
  const store = createMemoryStore();
  const engine = createReconcileEngine({ store });
  const asked: string[][] = [];
  const gateway: GatewayPort = {
    queryOrders: () => Promise.resolve(new Map()),
    ...(search === undefined ? {} : { searchRefunds: (orderNos: string[]) => { asked.push(orderNos); return search(orderNos); } }),
  };
  const sweeper = createSweeper({ engine, store, gateway, refundSettleAfterMs: ages.settle ?? 1, refundFailAfterMs: ages.fail ?? 60_000 });
  return { store, engine, sweeper, asked };
}

const found = (orderNo: string, refunds: RefundReport[]): Promise<Map<string, RefundReport[]>> => Promise.resolve(new Map([[orderNo, refunds]]));

describe('sweeper: pending refunds', () => {
  it('settles a pending row by amount among the references the ledger does not hold, and records a refund it missed', async () => {
    let orderNo = '';
    const { store, engine, sweeper, asked } = setUp(() => found(orderNo, [
      { referenceId: 'T-01', amount: 300, status: 'succeeded' },
      { referenceId: 'T-02', amount: 250, status: 'succeeded' },
    ]));
    const order = await makeOrder(store, { state: 'paid' });
    orderNo = order.orderNo;
    const reserved = await reserveRefund(engine, order, 250, 'staff');
    await sleep(5);
    const report = await sweeper.runOnce();
    expect(asked).toEqual([[order.orderNo]]);
    expect(report.refunds).toEqual({ orders: 1, settled: 1, failed: 0, errors: 0 });
    const rows = await store.listRefunds(order.id);
    expect(rows.find((r) => r.referenceId === 'T-02')).toMatchObject({ id: 'id' in reserved ? reserved.id : '', status: 'succeeded', source: 'admin' });
    expect(rows.find((r) => r.referenceId === 'T-01')).toMatchObject({ status: 'succeeded', source: 'sweeper' });
    expect(await store.get(order.id)).toMatchObject({ state: 'partially_refunded', refundedAmount: 550 });
  });

  it('fails nothing when the refund search fails, nor a row younger than the settle age', async () => {
    const { store, engine, sweeper } = setUp(() => Promise.reject(new Error('down')), { fail: 1 });
    const order = await makeOrder(store, { state: 'paid' });
    await reserveRefund(engine, order, 400, 'staff');
    await sleep(5);
    expect((await sweeper.runOnce()).refunds).toEqual({ orders: 1, settled: 0, failed: 0, errors: 1 });
    expect(await store.listRefunds(order.id)).toEqual([expect.objectContaining({ status: 'pending' })]);

    const young = setUp(() => Promise.resolve(new Map()), { settle: 60_000, fail: 1 });
    const other = await makeOrder(young.store, { state: 'paid' });
    await reserveRefund(young.engine, other, 400, 'staff');
    expect((await young.sweeper.runOnce()).refunds).toBeUndefined();
    expect(young.asked).toEqual([]);
  });

  it('without searchRefunds on the port it only reports the rows it cannot settle', async () => {
    const { store, engine, sweeper } = setUp(undefined, { fail: 1 });
    const order = await makeOrder(store, { state: 'paid' });
    await reserveRefund(engine, order, 400, 'staff');
    await sleep(5);
    expect((await sweeper.runOnce()).refunds).toEqual({ orders: 0, settled: 0, failed: 0, errors: 1 });
    expect(await store.listRefunds(order.id)).toEqual([expect.objectContaining({ status: 'pending' })]);
  });
});
