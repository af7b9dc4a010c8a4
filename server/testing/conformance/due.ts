/** What the sweeper sees: due orders by state and age, oldest first, leased ones skipped. */
import { describe, expect, it } from 'vitest';
import type { Order } from '../../orders/types.js';
import { createInOrder, sleep } from './context.js';
import type { ConformanceContext } from './context.js';

const SETTLE = ['pending', 'requires_action'] as const;
const future = (): Date => new Date(Date.now() + 3_600_000);
const ids = (orders: Order[]): string[] => orders.map((o) => o.id);

export function dueCases(ctx: ConformanceContext): void {
  /** Four due orders (oldest first) and two that are not due by state. */
  async function seed(): Promise<string[]> {
    const base = Date.now() - 600_000;
    const due = [0, 1, 2, 3].map((i) =>
      ctx.newOrder({ state: i % 2 === 0 ? 'pending' : 'requires_action', createdAt: new Date(base + i * 1000) }),
    );
    const other = [ctx.newOrder({ state: 'paid', createdAt: new Date(base - 1000) }), ctx.newOrder({ createdAt: new Date(base - 2000) })];
    await createInOrder(ctx, [...other, ...due]);
    return due.map((o) => o.id);
  }

  describe('due orders', () => {
    it('lists orders in the given states, oldest update first, up to the limit', async () => {
      const due = await seed();
      expect(ids(await ctx.store.listDue({ states: SETTLE, updatedBefore: future(), limit: 10 }))).toEqual(due);
      expect(ids(await ctx.store.listDue({ states: SETTLE, updatedBefore: future(), limit: 2 }))).toEqual(due.slice(0, 2));
      expect(ids(await ctx.store.listDue({ states: ['requires_action'], updatedBefore: future(), limit: 10 }))).toEqual([due[1], due[3]]);
      expect(await ctx.store.listDue({ states: SETTLE, updatedBefore: future(), limit: 0 })).toEqual([]);
    });

    it('takes only orders updated strictly before the cut-off', async () => {
      const due = await seed();
      const third = await ctx.store.get(due[2] ?? '');
      if (!third) throw new Error('seeded order missing');
      expect(ids(await ctx.store.listDue({ states: SETTLE, updatedBefore: third.updatedAt, limit: 10 }))).toEqual(due.slice(0, 2));
    });

    it('sees a transition as a fresh update', async () => {
      const due = await seed();
      const first = due[0] ?? '';
      await ctx.store.transition(first, 0, { state: 'requires_action' });
      expect(ids(await ctx.store.listDue({ states: SETTLE, updatedBefore: future(), limit: 10 }))).toEqual([...due.slice(1), first]);
      await ctx.store.transition(first, 1, { state: 'paid' });
      expect(ids(await ctx.store.listDue({ states: SETTLE, updatedBefore: future(), limit: 10 }))).toEqual(due.slice(1));
    });

    it('skips orders under an unexpired lease, includes expired ones, and leases nothing itself', async () => {
      const due = await seed();
      await ctx.store.acquireLease(due[0] ?? '', 'held', 60_000);
      await ctx.store.acquireLease(due[1] ?? '', 'lapsed', 1);
      await sleep(ctx.options.leaseWaitMs);
      const listed = ids(await ctx.store.listDue({ states: SETTLE, updatedBefore: future(), limit: 10 }));
      expect(listed).toEqual(due.slice(1));
      expect(ids(await ctx.store.listDue({ states: SETTLE, updatedBefore: future(), limit: 10 }))).toEqual(listed);
      expect(await ctx.store.acquireLease(due[2] ?? '', 'someone', 60_000)).toBe(true);
    });

    it('claims what it returns: leased to the owner, invisible to other sweepers', async () => {
      const due = await seed();
      const claimed = await ctx.store.claimDue({ states: SETTLE, updatedBefore: future(), limit: 2, owner: 'sweeper-a', leaseMs: 60_000 });
      expect(ids(claimed)).toEqual(due.slice(0, 2));
      expect(await ctx.store.acquireLease(due[0] ?? '', 'sweeper-b', 60_000)).toBe(false);
      expect(await ctx.store.acquireLease(due[1] ?? '', 'sweeper-a', 60_000)).toBe(true);
      const next = await ctx.store.claimDue({ states: SETTLE, updatedBefore: future(), limit: 10, owner: 'sweeper-b', leaseMs: 60_000 });
      expect(ids(next)).toEqual(due.slice(2));
      expect(await ctx.store.listDue({ states: SETTLE, updatedBefore: future(), limit: 10 })).toEqual([]);
      expect(await ctx.store.claimDue({ states: SETTLE, updatedBefore: future(), limit: 10, owner: 'sweeper-c', leaseMs: 60_000 })).toEqual([]);
      await ctx.store.releaseLease(due[0] ?? '', 'sweeper-a');
      expect(ids(await ctx.store.listDue({ states: SETTLE, updatedBefore: future(), limit: 10 }))).toEqual([due[0]]);
    });

    it('never hands one order to two concurrent claims', async () => {
      const orders = Array.from({ length: 20 }, () => ctx.newOrder({ state: 'pending' }));
      for (const order of orders) await ctx.store.create(order);
      const batches = await Promise.all(
        ['w1', 'w2', 'w3', 'w4'].map((owner) => ctx.store.claimDue({ states: SETTLE, updatedBefore: future(), limit: 5, owner, leaseMs: 60_000 })),
      );
      const all = batches.flatMap(ids);
      expect(new Set(all).size).toBe(all.length);
      expect(all.sort()).toEqual(orders.map((o) => o.id).sort());
    });
  });
}
