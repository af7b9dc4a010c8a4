/** Staff lists: newest first, filtered by state, creation range and attention, paged. */
import { describe, expect, it } from 'vitest';
import type { Order, OrderState } from '../../orders/types.js';
import type { ConformanceContext } from './context.js';

const ids = (orders: Order[]): string[] => orders.map((o) => o.id);

export function listCases(ctx: ConformanceContext): void {
  /** Five orders created an hour apart (index 0 oldest); index 1 and 3 flagged for attention. */
  async function seed(): Promise<{ ids: string[]; createdAt: Date[] }> {
    const base = Date.parse('2024-03-01T00:00:00.000Z');
    const states: OrderState[] = ['created', 'paid', 'pending', 'paid', 'declined'];
    const orders = states.map((state, i) => ctx.newOrder({ state, createdAt: new Date(base + i * 3_600_000) }));
    for (const order of orders) await ctx.store.create(order);
    for (const i of [1, 3]) {
      const result = await ctx.store.transition(orders[i]?.id ?? '', 0, { attention: 'amount mismatch' });
      expect(result.ok).toBe(true);
    }
    return { ids: orders.map((o) => o.id), createdAt: orders.map((o) => o.createdAt ?? new Date(0)) };
  }

  describe('list', () => {
    it('lists newest createdAt first, with limit and offset', async () => {
      const seeded = await seed();
      const newestFirst = [...seeded.ids].reverse();
      expect(ids(await ctx.store.list({ limit: 10 }))).toEqual(newestFirst);
      expect(ids(await ctx.store.list({ limit: 2 }))).toEqual(newestFirst.slice(0, 2));
      expect(ids(await ctx.store.list({ limit: 2, offset: 2 }))).toEqual(newestFirst.slice(2, 4));
      expect(await ctx.store.list({ limit: 10, offset: 5 })).toEqual([]);
    });

    it('filters by states', async () => {
      const seeded = await seed();
      expect(ids(await ctx.store.list({ states: ['paid'], limit: 10 }))).toEqual([seeded.ids[3], seeded.ids[1]]);
      expect(ids(await ctx.store.list({ states: ['created', 'declined'], limit: 10 }))).toEqual([seeded.ids[4], seeded.ids[0]]);
      expect(await ctx.store.list({ states: ['refunded'], limit: 10 })).toEqual([]);
    });

    it('filters by creation time: createdFrom inclusive, createdTo exclusive', async () => {
      const seeded = await seed();
      const [, second, , fourth] = seeded.createdAt;
      if (!second || !fourth) throw new Error('seed dates missing');
      const range = await ctx.store.list({ createdFrom: second, createdTo: fourth, limit: 10 });
      expect(ids(range)).toEqual([seeded.ids[2], seeded.ids[1]]);
      expect(ids(await ctx.store.list({ createdFrom: fourth, limit: 10 }))).toEqual([seeded.ids[4], seeded.ids[3]]);
      expect(ids(await ctx.store.list({ createdTo: second, limit: 10 }))).toEqual([seeded.ids[0]]);
    });

    it('filters by attention flag, combined with other filters', async () => {
      const seeded = await seed();
      const flagged = await ctx.store.list({ attention: true, limit: 10 });
      expect(ids(flagged)).toEqual([seeded.ids[3], seeded.ids[1]]);
      expect(flagged.every((o) => o.attention === 'amount mismatch')).toBe(true);
      expect(ids(await ctx.store.list({ attention: false, limit: 10 }))).toEqual([seeded.ids[4], seeded.ids[2], seeded.ids[0]]);
      expect(ids(await ctx.store.list({ attention: true, createdTo: seeded.createdAt[3], limit: 10 }))).toEqual([seeded.ids[1]]);
    });
  });
}
