/** Compare-and-set transitions and their events: one atomic step, all or nothing. */
import { describe, expect, it } from 'vitest';
import type { ConformanceContext } from './context.js';

export function transitionCases(ctx: ConformanceContext): void {
  describe('compare-and-set transitions', () => {
    it('applies the patch, bumps the version, merges data one level deep and sets updatedAt', async () => {
      const input = ctx.newOrder({ data: { a: 1, b: { keep: false } } });
      const created = await ctx.store.create(input);
      const before = Date.now();
      const result = await ctx.store.transition(input.id, 0, {
        state: 'pending',
        method: 'card',
        capturedAmount: 0,
        data: { b: { replaced: true }, c: 'new' },
      });
      const after = Date.now();
      if (!result.ok) throw new Error('transition from the current version was refused');
      expect(result.event).toBeNull();
      expect(result.order).toMatchObject({ state: 'pending', method: 'card', version: 1, amount: 1000, transactionId: null });
      expect(result.order.data).toEqual({ a: 1, b: { replaced: true }, c: 'new' });
      // "now" of the store's clock; a database clock may differ a little from this process's.
      expect(result.order.updatedAt.getTime()).toBeGreaterThanOrEqual(before - 5_000);
      expect(result.order.updatedAt.getTime()).toBeLessThanOrEqual(after + 5_000);
      expect(result.order.createdAt.getTime()).toBe(created.createdAt.getTime());
      expect(await ctx.store.get(input.id)).toEqual(result.order);
    });

    it('leaves absent fields alone and clears fields patched to null', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      const set = await ctx.store.transition(input.id, 0, {
        state: 'paid',
        transactionId: 'tx-1',
        maskedCard: '424242******4242',
        capturedAmount: 1000,
        attention: 'paid after cancel',
      });
      expect(set.ok).toBe(true);
      const cleared = await ctx.store.transition(input.id, 1, { attention: null, maskedCard: null });
      if (!cleared.ok) throw new Error('second transition was refused');
      expect(cleared.order).toMatchObject({
        state: 'paid',
        transactionId: 'tx-1',
        maskedCard: null,
        capturedAmount: 1000,
        attention: null,
        version: 2,
      });
    });

    it('stores the event with the transition and returns it', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      const result = await ctx.store.transition(
        input.id,
        0,
        { state: 'pending' },
        { type: 'transition', source: 'pay', fromState: 'created', toState: 'pending', actor: 'shopper', dedupeKey: 'pay-1', data: { note: 'x' } },
      );
      if (!result.ok) throw new Error('transition was refused');
      expect(result.event).toMatchObject({
        orderId: input.id,
        seq: 1,
        type: 'transition',
        source: 'pay',
        fromState: 'created',
        toState: 'pending',
        dedupeKey: 'pay-1',
        actor: 'shopper',
        data: { note: 'x' },
      });
      expect(result.event?.createdAt).toBeInstanceOf(Date);
      expect(await ctx.store.listEvents(input.id)).toEqual([result.event]);
    });

    it('refuses a stale version with the current order and changes nothing', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      const won = await ctx.store.transition(input.id, 0, { state: 'pending' }, { type: 'transition', source: 'pay' });
      expect(won.ok).toBe(true);
      const lost = await ctx.store.transition(input.id, 0, { state: 'declined', data: { lost: true } }, { type: 'transition', source: 'notify' });
      expect(lost).toEqual({ ok: false, current: await ctx.store.get(input.id) });
      if (lost.ok) return;
      expect(lost.current).toMatchObject({ state: 'pending', version: 1, data: {} });
      const events = await ctx.store.listEvents(input.id);
      expect(events.map((e) => e.source)).toEqual(['pay']);
    });

    it('refuses a transition of an unknown order with current null', async () => {
      expect(await ctx.store.transition('no-such-id', 0, { state: 'pending' }, { type: 'transition', source: 'api' })).toEqual({
        ok: false,
        current: null,
      });
      expect(await ctx.store.listEvents('no-such-id')).toEqual([]);
    });

    it('refuses the whole transition when its event dedupe key already exists', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      const first = await ctx.store.appendEvent(input.id, { type: 'notification', source: 'notify', dedupeKey: 'n-1' });
      expect(first.appended).toBe(true);
      const result = await ctx.store.transition(input.id, 0, { state: 'paid' }, { type: 'transition', source: 'notify', dedupeKey: 'n-1' });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.current).toMatchObject({ state: 'created', version: 0 });
      expect(await ctx.store.get(input.id)).toMatchObject({ state: 'created', version: 0 });
      expect((await ctx.store.listEvents(input.id)).map((e) => e.type)).toEqual(['notification']);
    });

    it('lets exactly one of many concurrent transitions from one version win', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      const attempts = Array.from({ length: 10 }, (_, i) =>
        ctx.store.transition(input.id, 0, { state: 'pending', data: { winner: i } }, { type: 'transition', source: 'api', actor: `racer-${i}` }),
      );
      const results = await Promise.all(attempts);
      const winners = results.filter((r) => r.ok);
      expect(winners).toHaveLength(1);
      const stored = await ctx.store.get(input.id);
      expect(stored?.version).toBe(1);
      const events = await ctx.store.listEvents(input.id);
      expect(events).toHaveLength(1);
      expect(events[0]?.actor).toBe(`racer-${String(stored?.data.winner)}`);
    });
  });
}
