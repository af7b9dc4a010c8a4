/** Per-order leases: one holder at a time, renewable, releasable, expiring on their own. */
import { describe, expect, it } from 'vitest';
import { sleep } from './context.js';
import type { ConformanceContext } from './context.js';

export function leaseCases(ctx: ConformanceContext): void {
  describe('leases', () => {
    it('grants a free lease, refuses other owners, renews for the holder and frees on release', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      expect(await ctx.store.acquireLease(input.id, 'a', 60_000)).toBe(true);
      expect(await ctx.store.acquireLease(input.id, 'b', 60_000)).toBe(false);
      expect(await ctx.store.acquireLease(input.id, 'a', 60_000)).toBe(true);
      await ctx.store.releaseLease(input.id, 'b');
      expect(await ctx.store.acquireLease(input.id, 'b', 60_000)).toBe(false);
      await ctx.store.releaseLease(input.id, 'a');
      expect(await ctx.store.acquireLease(input.id, 'b', 60_000)).toBe(true);
      expect(await ctx.store.acquireLease(input.id, 'a', 60_000)).toBe(false);
    });

    it('lets another owner take an expired lease', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      expect(await ctx.store.acquireLease(input.id, 'a', 1)).toBe(true);
      await sleep(ctx.options.leaseWaitMs);
      expect(await ctx.store.acquireLease(input.id, 'b', 60_000)).toBe(true);
      expect(await ctx.store.acquireLease(input.id, 'a', 60_000)).toBe(false);
    });

    it('extends the lease when the holder renews it', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      expect(await ctx.store.acquireLease(input.id, 'a', 1)).toBe(true);
      expect(await ctx.store.acquireLease(input.id, 'a', 60_000)).toBe(true);
      await sleep(ctx.options.leaseWaitMs);
      expect(await ctx.store.acquireLease(input.id, 'b', 60_000)).toBe(false);
    });

    it('refuses a lease on an unknown order and ignores releasing one', async () => {
      expect(await ctx.store.acquireLease('no-such-id', 'a', 60_000)).toBe(false);
      await expect(ctx.store.releaseLease('no-such-id', 'a')).resolves.toBeUndefined();
    });

    it('does not change the order', async () => {
      const input = ctx.newOrder();
      const created = await ctx.store.create(input);
      await ctx.store.acquireLease(input.id, 'a', 60_000);
      expect(await ctx.store.get(input.id)).toEqual(created);
      await ctx.store.releaseLease(input.id, 'a');
      expect(await ctx.store.get(input.id)).toEqual(created);
    });

    it('gives a lease to exactly one of many concurrent owners', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => ctx.store.acquireLease(input.id, `owner-${i}`, 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });
}
