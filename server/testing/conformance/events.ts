/** The per-order event log: sequence numbers, dedupe keys, unknown orders, long histories. */
import { describe, expect, it } from 'vitest';
import type { ConformanceContext } from './context.js';

export function eventCases(ctx: ConformanceContext): void {
  describe('events', () => {
    it('numbers events 1..n in append order, across appendEvent and transition', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      await ctx.store.appendEvent(input.id, { type: 'return_hint', source: 'return' });
      await ctx.store.transition(input.id, 0, { state: 'pending' }, { type: 'transition', source: 'sweeper' });
      await ctx.store.appendEvent(input.id, { type: 'notification', source: 'notify' });
      const events = await ctx.store.listEvents(input.id);
      expect(events.map((e) => [e.seq, e.type])).toEqual([
        [1, 'return_hint'],
        [2, 'transition'],
        [3, 'notification'],
      ]);
      expect(new Set(events.map((e) => e.id)).size).toBe(3);
      expect(events.every((e) => e.orderId === input.id && e.createdAt instanceof Date)).toBe(true);
    });

    it('appends without changing the order and fills absent fields with null and {}', async () => {
      const input = ctx.newOrder();
      const created = await ctx.store.create(input);
      const result = await ctx.store.appendEvent(input.id, { type: 'admin_action', source: 'admin' });
      if (!result.appended) throw new Error('a new event was not appended');
      expect(result.event).toMatchObject({ seq: 1, fromState: null, toState: null, dedupeKey: null, actor: null, data: {} });
      expect(await ctx.store.get(input.id)).toEqual(created);
    });

    it('returns the existing event for a repeated dedupe key and writes nothing', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      const first = await ctx.store.appendEvent(input.id, { type: 'notification', source: 'notify', dedupeKey: 'k', data: { n: 1 } });
      if (!first.appended) throw new Error('the first event was not appended');
      const again = await ctx.store.appendEvent(input.id, { type: 'notification', source: 'notify', dedupeKey: 'k', data: { n: 2 } });
      expect(again).toEqual({ appended: false, existing: first.event });
      expect(await ctx.store.listEvents(input.id)).toEqual([first.event]);
    });

    it('scopes dedupe keys to one order and never dedupes events without a key', async () => {
      const a = ctx.newOrder();
      const b = ctx.newOrder();
      await ctx.store.create(a);
      await ctx.store.create(b);
      expect((await ctx.store.appendEvent(a.id, { type: 'notification', source: 'notify', dedupeKey: 'same' })).appended).toBe(true);
      expect((await ctx.store.appendEvent(b.id, { type: 'notification', source: 'notify', dedupeKey: 'same' })).appended).toBe(true);
      expect((await ctx.store.appendEvent(a.id, { type: 'return_hint', source: 'return' })).appended).toBe(true);
      expect((await ctx.store.appendEvent(a.id, { type: 'return_hint', source: 'return', dedupeKey: null })).appended).toBe(true);
      expect(await ctx.store.listEvents(a.id)).toHaveLength(3);
      expect(await ctx.store.listEvents(b.id)).toHaveLength(1);
    });

    it('rejects appending to an unknown order with ERR_ORDER_NOT_FOUND', async () => {
      await expect(ctx.store.appendEvent('no-such-id', { type: 'notification', source: 'notify' })).rejects.toMatchObject({
        code: 'ERR_ORDER_NOT_FOUND',
      });
      await expect(ctx.store.appendEvent('no-such-id', { type: 'notification', source: 'notify', dedupeKey: 'k' })).rejects.toMatchObject({
        code: 'ERR_ORDER_NOT_FOUND',
      });
      expect(await ctx.store.listEvents('no-such-id')).toEqual([]);
    });

    it('lets concurrent appends with one dedupe key store it once', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      const results = await Promise.all(
        Array.from({ length: 8 }, () => ctx.store.appendEvent(input.id, { type: 'notification', source: 'notify', dedupeKey: 'dup' })),
      );
      expect(results.filter((r) => r.appended)).toHaveLength(1);
      const events = await ctx.store.listEvents(input.id);
      expect(events).toHaveLength(1);
      for (const r of results) expect(r.appended ? r.event : r.existing).toEqual(events[0]);
    });

    it('keeps a long history in order', { timeout: ctx.options.slowTimeoutMs }, async () => {
      const count = ctx.options.largeHistoryEvents;
      const input = ctx.newOrder();
      await ctx.store.create(input);
      for (let i = 1; i <= count; i++) {
        await ctx.store.appendEvent(input.id, { type: 'notification', source: 'notify', dedupeKey: `n-${i}`, data: { i } });
      }
      const moved = await ctx.store.transition(input.id, 0, { state: 'pending' }, { type: 'transition', source: 'sweeper' });
      expect(moved.ok && moved.event?.seq).toBe(count + 1);
      const events = await ctx.store.listEvents(input.id);
      expect(events).toHaveLength(count + 1);
      expect(events.every((e, index) => e.seq === index + 1)).toBe(true);
      expect(events.slice(0, count).every((e, index) => e.data.i === index + 1)).toBe(true);
    });

    it('reads a page of the log: the newest limit events below beforeSeq, seq ascending', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      for (let i = 1; i <= 7; i++) await ctx.store.appendEvent(input.id, { type: 'notification', source: 'notify', dedupeKey: `p-${i}`, data: { i } });
      const seqs = async (page: { beforeSeq?: number; limit?: number }): Promise<number[]> => (await ctx.store.listEvents(input.id, page)).map((e) => e.seq);
      expect(await seqs({ limit: 3 })).toEqual([5, 6, 7]);
      expect(await seqs({ beforeSeq: 5, limit: 3 })).toEqual([2, 3, 4]);
      expect(await seqs({ beforeSeq: 3, limit: 3 })).toEqual([1, 2]);
      expect(await seqs({ beforeSeq: 1, limit: 3 })).toEqual([]);
      expect(await seqs({ beforeSeq: 4 })).toEqual([1, 2, 3]);
      expect(await seqs({})).toEqual([1, 2, 3, 4, 5, 6, 7]);
      const [newest] = await ctx.store.listEvents(input.id, { limit: 1 });
      expect(newest).toEqual((await ctx.store.listEvents(input.id))[6]);
      expect(await ctx.store.listEvents('no-such-id', { limit: 5 })).toEqual([]);
    });

    it('reads the event stored with a dedupe key, within the page bounds, and nothing for a key it does not hold', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      const other = ctx.newOrder();
      await ctx.store.create(other);
      for (let i = 1; i <= 5; i++) await ctx.store.appendEvent(input.id, { type: 'notification', source: 'notify', dedupeKey: `k-${i}`, data: { i } });
      await ctx.store.appendEvent(input.id, { type: 'note', source: 'admin', data: { text: 'no key' } });
      await ctx.store.appendEvent(other.id, { type: 'notification', source: 'notify', dedupeKey: 'only-other', data: {} });
      const all = await ctx.store.listEvents(input.id);
      expect(await ctx.store.listEvents(input.id, { dedupeKey: 'k-3' })).toEqual([all[2]]);
      expect(await ctx.store.listEvents(input.id, { dedupeKey: 'k-3', limit: 1 })).toEqual([all[2]]);
      expect(await ctx.store.listEvents(input.id, { dedupeKey: 'k-3', beforeSeq: 4 })).toEqual([all[2]]);
      expect(await ctx.store.listEvents(input.id, { dedupeKey: 'k-3', beforeSeq: 3 })).toEqual([]);
      expect(await ctx.store.listEvents(input.id, { dedupeKey: 'only-other' })).toEqual([]);
      expect(await ctx.store.listEvents(input.id, { dedupeKey: 'k-9' })).toEqual([]);
      expect(await ctx.store.listEvents('no-such-id', { dedupeKey: 'k-1' })).toEqual([]);
      await expect(ctx.store.listEvents(input.id, { dedupeKey: '' })).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
    });

    it('refuses a page bound that is not a whole number of at least 1 with ERR_VALIDATION', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      for (const page of [{ limit: 0 }, { limit: 2.5 }, { beforeSeq: 0 }, { beforeSeq: -1 }]) {
        await expect(ctx.store.listEvents(input.id, page)).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
      }
    });
  });
}
