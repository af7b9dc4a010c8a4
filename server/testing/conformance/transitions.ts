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

  // The engine hands the store the copy it planned from (`known`); a store may write from it
  // instead of reading the row. Each case would fail if such a store trusted the copy over the
  // stored version, or numbered the event from the copy instead of the row.
  describe("compare-and-set from the caller's copy", () => {
    it('gives what a read would: the patch on the stored order, the event numbered after appended ones', async () => {
      const input = ctx.newOrder({ data: { a: 1, b: { keep: true } } });
      await ctx.store.create(input);
      const copy = await ctx.store.get(input.id);
      if (!copy) throw new Error('created order not found');
      // Appending bumps the event count but not the version: the copy is still current.
      await ctx.store.appendEvent(input.id, { type: 'note', source: 'api' });
      const outbox = [{ hook: 'onPaid', payload: { n: 1 } }];
      const result = await ctx.store.transition(input.id, 0, { state: 'pending', data: { c: 'new' } }, { type: 'transition', source: 'pay', dedupeKey: 'k-1', data: { e: [1] } }, { outbox }, copy);
      if (!result.ok) throw new Error('transition from the current copy was refused');
      expect(result.order).toMatchObject({ state: 'pending', version: 1, data: { a: 1, b: { keep: true }, c: 'new' } });
      expect(result.event?.seq).toBe(2);
      expect(await ctx.store.get(input.id)).toEqual(result.order);
      expect((await ctx.store.listEvents(input.id))[1]).toEqual(result.event);
      expect((await ctx.store.listOutbox({ orderId: input.id, limit: 10 })).map((e) => e.order)).toEqual([result.order]);
      // A fresh copy: changing it changes neither the caller's copy nor the next result.
      (result.order.data.b as { keep: boolean }).keep = false;
      expect(copy.data.b).toEqual({ keep: true });
      (result.order.data.b as { keep: boolean }).keep = true;
      expect((await ctx.store.listEvents(input.id)).map((e) => e.seq)).toEqual([1, 2]);
      // The copy the transition returned is the next caller's copy.
      const next = await ctx.store.transition(input.id, 1, { state: 'paid' }, { type: 'transition', source: 'notify' }, undefined, result.order);
      if (!next.ok) throw new Error('transition from the returned copy was refused');
      expect(next.event?.seq).toBe(3);
      expect(await ctx.store.get(input.id)).toEqual(next.order);
    });

    it('refuses a stale copy with the current order and writes nothing (event, outbox)', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      const stale = await ctx.store.get(input.id);
      if (!stale) throw new Error('created order not found');
      const won = await ctx.store.transition(input.id, 0, { state: 'pending', data: { won: true } }, { type: 'transition', source: 'pay' });
      expect(won.ok).toBe(true);
      const outbox = [{ hook: 'onPaid', payload: { from: 'pending' } }];
      const lost = await ctx.store.transition(input.id, 0, { state: 'paid', data: { lost: true } }, { type: 'transition', source: 'notify', dedupeKey: 'late' }, { outbox }, stale);
      expect(lost).toEqual({ ok: false, current: await ctx.store.get(input.id) });
      expect(await ctx.store.get(input.id)).toMatchObject({ state: 'pending', version: 1, data: { won: true } });
      const withoutEvent = await ctx.store.transition(input.id, 0, { attention: 'stale' }, undefined, undefined, stale);
      expect(withoutEvent).toEqual({ ok: false, current: await ctx.store.get(input.id) });
      expect((await ctx.store.listEvents(input.id)).map((e) => e.source)).toEqual(['pay']);
      expect(await ctx.store.listOutbox({ orderId: input.id, limit: 10 })).toEqual([]);
    });

    it('ignores a copy of another version than the expected one, and refuses one whose order is gone', async () => {
      const input = ctx.newOrder({ data: { a: 1 } });
      await ctx.store.create(input);
      const old = await ctx.store.get(input.id);
      if (!old) throw new Error('created order not found');
      const moved = await ctx.store.transition(input.id, 0, { state: 'pending', data: { b: 2 } });
      expect(moved.ok).toBe(true);
      // Version 1 is expected and stored, but the copy is of version 0: the stored order counts.
      const result = await ctx.store.transition(input.id, 1, { state: 'paid' }, { type: 'transition', source: 'notify' }, undefined, old);
      if (!result.ok) throw new Error('transition from the stored version was refused');
      expect(result.order).toMatchObject({ state: 'paid', version: 2, data: { a: 1, b: 2 } });
      expect(await ctx.store.get(input.id)).toEqual(result.order);
      const ghost = { ...old, id: 'no-such-id' };
      expect(await ctx.store.transition('no-such-id', 0, { state: 'pending' }, { type: 'transition', source: 'api' }, undefined, ghost)).toEqual({ ok: false, current: null });
      expect(await ctx.store.listEvents('no-such-id')).toEqual([]);
    });

    it('refuses a repeated dedupe key from a current copy, writing nothing', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      const copy = await ctx.store.get(input.id);
      if (!copy) throw new Error('created order not found');
      expect((await ctx.store.appendEvent(input.id, { type: 'notification', source: 'notify', dedupeKey: 'n-1' })).appended).toBe(true);
      const repeated = await ctx.store.transition(input.id, 0, { state: 'paid' }, { type: 'transition', source: 'notify', dedupeKey: 'n-1' }, { outbox: [{ hook: 'onPaid', payload: {} }] }, copy);
      expect(repeated).toEqual({ ok: false, current: await ctx.store.get(input.id) });
      expect(await ctx.store.get(input.id)).toMatchObject({ state: 'created', version: 0 });
      expect((await ctx.store.listEvents(input.id)).map((e) => e.type)).toEqual(['notification']);
      expect(await ctx.store.listOutbox({ orderId: input.id, limit: 10 })).toEqual([]);
      const fresh = await ctx.store.transition(input.id, 0, { state: 'paid' }, { type: 'transition', source: 'notify', dedupeKey: 'n-2' }, undefined, copy);
      if (!fresh.ok) throw new Error('transition with a new key was refused');
      expect(fresh.event?.seq).toBe(2);
    });

    it('lets exactly one of many concurrent writers holding the same copy win', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      const copy = await ctx.store.get(input.id);
      if (!copy) throw new Error('created order not found');
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) =>
        ctx.store.transition(input.id, 0, { state: 'pending', data: { winner: i } }, { type: 'transition', source: 'api', actor: `racer-${i}` }, undefined, copy)));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const stored = await ctx.store.get(input.id);
      expect(stored?.version).toBe(1);
      for (const lost of results.filter((r) => !r.ok)) expect(lost).toEqual({ ok: false, current: stored });
      const events = await ctx.store.listEvents(input.id);
      expect(events).toHaveLength(1);
      expect(events[0]?.actor).toBe(`racer-${String(stored?.data.winner)}`);
    });
  });
}
