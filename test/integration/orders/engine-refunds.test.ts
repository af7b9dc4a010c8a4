/**
 * The engine's refund ledger on every kit store (memory, a SQLite file, PostgreSQL): staff
 * reservations raced by two engines never exceed what remains, and answers and notifications of
 * the same refunds, applied at once in any order, give one row per refund and the right total.
 */
import { describe, expect, it } from 'vitest';
import { reserveRefund } from '../../../server/admin/gateway-actions.js';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import { kitStores } from '../stores/kit-stores.js';
import { makeOrder, recordingHooks } from './fixtures.js';

const stores = kitStores('engine-refunds');

describe.each(stores)('refund ledger through the engine (%s)', (_name, open) => {
  it('ten reservations raced by two engines: only what fits is reserved, settled rows give the total', async () => {
    const { store, done } = await open();
    try {
      const a = createReconcileEngine({ store, owner: 'a' });
      const b = createReconcileEngine({ store, owner: 'b' });
      const order = await makeOrder(store, { amount: 11_800, state: 'paid' });
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => reserveRefund(i % 2 === 0 ? a : b, order, 4_720, 'staff')));
      const reserved = results.filter((r): r is { id: string } => 'id' in r);
      expect(reserved).toHaveLength(2);
      expect(results.filter((r) => 'refused' in r)).toHaveLength(8);
      // The answers and the notifications of the two refunds, all at once.
      const hooks = recordingHooks();
      const c = createReconcileEngine({ store, owner: 'c', hooks: hooks.hooks });
      await Promise.all([
        ...reserved.map((r, i) => c.apply({ orderId: order.id, source: 'admin', outcome: 'unknown', refunds: [{ id: r.id, referenceId: `T-0${String(i + 1)}`, amount: 4_720, status: 'succeeded' }] })),
        ...[1, 2, 1, 2].map((i) => a.apply({ orderId: order.id, source: 'notify', outcome: 'partially_refunded', refunds: [{ referenceId: `T-0${String(i)}`, amount: 4_720, status: 'succeeded' }] })),
      ]);
      const rows = await store.listRefunds(order.id);
      expect(rows.map((r) => [r.referenceId, r.status]).sort()).toEqual([['T-01', 'succeeded'], ['T-02', 'succeeded']]);
      expect(await store.get(order.id)).toMatchObject({ state: 'partially_refunded', refundedAmount: 9_440, attention: null });
      // What remains is still refundable.
      expect('id' in (await reserveRefund(a, (await store.get(order.id))!, 2_360, 'staff'))).toBe(true);
    } finally {
      await done();
    }
  });

  it('refunds recorded with a chargeback are told to onRefunded, before onChargeback; refunds recorded on a charged-back order too', async () => {
    const { store, done } = await open();
    try {
      const hooks = recordingHooks();
      const engine = createReconcileEngine({ store, hooks: hooks.hooks });
      const order = await makeOrder(store, { amount: 10_000, state: 'paid' });
      // The query after lost notifications: a chargeback, and a refund made before it.
      const first = await engine.apply({ orderId: order.id, source: 'sweeper', outcome: 'chargeback', listedRefunds: [{ referenceId: 'T-01', amount: 2_000, status: 'succeeded' }] });
      expect(first.order).toMatchObject({ state: 'chargeback', refundedAmount: 2_000 });
      expect(hooks.calls.filter((c) => c.orderId === order.id).map((c) => c.hook)).toEqual(['onTransition', 'onRefunded', 'onChargeback', 'onAttention']);
      expect(hooks.calls.find((c) => c.hook === 'onRefunded')?.info).toMatchObject({ from: 'paid', to: 'chargeback', refundedAmount: 2_000 });
      // A second refund the gateway lists afterwards: the state stays, the total grows, onRefunded once more.
      await engine.apply({ orderId: order.id, source: 'sweeper', outcome: 'chargeback', listedRefunds: [{ referenceId: 'T-01', amount: 2_000, status: 'succeeded' }, { referenceId: 'T-02', amount: 500, status: 'succeeded' }] });
      expect(await store.get(order.id)).toMatchObject({ state: 'chargeback', refundedAmount: 2_500 });
      expect(hooks.count('onRefunded', order.id)).toBe(2);
      expect(hooks.calls.filter((c) => c.hook === 'onRefunded').at(-1)?.info).toMatchObject({ from: 'chargeback', to: 'chargeback', refundedAmount: 2_500 });
      // The same list again records nothing and tells nothing.
      await engine.apply({ orderId: order.id, source: 'sweeper', outcome: 'chargeback', listedRefunds: [{ referenceId: 'T-01', amount: 2_000, status: 'succeeded' }, { referenceId: 'T-02', amount: 500, status: 'succeeded' }] });
      expect(hooks.calls.filter((c) => c.orderId === order.id)).toHaveLength(5);
    } finally {
      await done();
    }
  });
});
