/**
 * The hook outbox: entries stored atomically with their transition, claimed per order under a
 * lease, completed, failed with a retry time or given up, and counted.
 */
import { describe, expect, it } from 'vitest';
import { sleep } from './context.js';
import type { ConformanceContext } from './context.js';
import type { NewOutboxEntry } from '../../orders/store.js';

const PAID: NewOutboxEntry[] = [
  { hook: 'onTransition', payload: { source: 'notify', from: 'created', to: 'paid' } },
  { hook: 'onPaid', payload: { source: 'notify', from: 'created', to: 'paid', nested: { n: 1 } } },
];

function nth<T>(list: readonly T[], i: number): T {
  const value = list[i];
  if (value === undefined) throw new Error(`expected at least ${String(i + 1)} entries, got ${String(list.length)}`);
  return value;
}

export function outboxCases(ctx: ConformanceContext): void {
  /** A new order moved to paid with PAID's two entries; returns its id. */
  const paidOrder = async (): Promise<string> => {
    const input = ctx.newOrder();
    await ctx.store.create(input);
    const moved = await ctx.store.transition(input.id, 0, { state: 'paid' }, { type: 'transition', source: 'notify' }, { outbox: PAID });
    if (!moved.ok) throw new Error('the transition was refused');
    return input.id;
  };

  describe('hook outbox', () => {
    it('stores the entries with the transition: unique ids, growing positions, the order as the transition left it', async () => {
      const input = ctx.newOrder({ data: { items: [{ sku: 'a' }] } });
      await ctx.store.create(input);
      const moved = await ctx.store.transition(input.id, 0, { state: 'paid', capturedAmount: 1000 }, undefined, { outbox: PAID });
      if (!moved.ok) throw new Error('the transition was refused');
      const entries = await ctx.store.listOutbox({ orderId: input.id, limit: 10 });
      expect(entries.map((e) => e.hook)).toEqual(['onTransition', 'onPaid']);
      expect(entries[1]).toMatchObject({ orderId: input.id, status: 'pending', attempts: 0, lastError: null, payload: nth(PAID, 1).payload });
      expect(new Set(entries.map((e) => e.id)).size).toBe(2);
      expect(nth(entries, 1).position).toBeGreaterThan(nth(entries, 0).position);
      expect(nth(entries, 0).order).toEqual(moved.order);
      expect(nth(entries, 0).createdAt).toBeInstanceOf(Date);
      expect(nth(entries, 0).nextAttemptAt).toBeInstanceOf(Date);
      expect(await ctx.store.countOutbox()).toEqual({ pending: 2, dead: 0 });
    });

    it('stores the entries of a transition with its event: each keeps the order as it was left (a child payment with its parentId)', async () => {
      const parent = await ctx.store.create(ctx.newOrder());
      // Child payments only where the store keeps them (subscriptions).
      const child = await ctx.store.create(ctx.newOrder({ ...(ctx.options.subscriptions ? { parentId: parent.id } : {}), data: { recurringId: 'RC1' } }));
      const event = { type: 'transition', source: 'notify' as const, fromState: 'created' as const, toState: 'paid' as const, dedupeKey: 'n-1' };
      const patch = { state: 'paid' as const, transactionId: 'T-1', maskedCard: '424242******4242', capturedAmount: child.amount, data: { resultCode: '0000' } };
      const moved = await ctx.store.transition(child.id, 0, patch, event, { outbox: PAID });
      if (!moved.ok) throw new Error('the transition was refused');
      expect(moved.event).toMatchObject({ dedupeKey: 'n-1', seq: 1 });
      const entries = await ctx.store.listOutbox({ orderId: child.id, limit: 10 });
      expect(entries.map((e) => e.hook)).toEqual(['onTransition', 'onPaid']);
      expect(nth(entries, 1).position).toBeGreaterThan(nth(entries, 0).position);
      for (const entry of entries) expect(entry.order).toEqual(moved.order);
      expect(nth(entries, 0).order.parentId).toBe(ctx.options.subscriptions ? parent.id : undefined);
      expect(nth(entries, 1).payload).toEqual(nth(PAID, 1).payload);
    });

    it('stores nothing when the transition is refused (stale version or repeated dedupe key)', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      const keyed = { type: 'transition', source: 'notify' as const, dedupeKey: 'n-1' };
      expect((await ctx.store.transition(input.id, 0, { state: 'pending' }, keyed)).ok).toBe(true);
      expect((await ctx.store.transition(input.id, 0, { state: 'paid' }, undefined, { outbox: PAID })).ok).toBe(false);
      expect((await ctx.store.transition(input.id, 1, { state: 'paid' }, keyed, { outbox: PAID })).ok).toBe(false);
      expect(await ctx.store.listOutbox({ orderId: input.id, limit: 10 })).toEqual([]);
      expect(await ctx.store.countOutbox()).toEqual({ pending: 0, dead: 0 });
      expect(await ctx.store.get(input.id)).toMatchObject({ state: 'pending' });
    });

    it('claims whole orders under a lease: another owner gets none of them until release, the holder may claim again', async () => {
      const a = await paidOrder();
      const b = await paidOrder();
      const first = await ctx.store.claimOutbox({ owner: 'one', leaseMs: 60_000, limit: 1 });
      expect(first.map((e) => e.orderId)).toEqual([a, a]);
      expect(first.map((e) => e.hook)).toEqual(['onTransition', 'onPaid']);
      const second = await ctx.store.claimOutbox({ owner: 'two', leaseMs: 60_000, limit: 10 });
      expect(second.map((e) => e.orderId)).toEqual([b, b]);
      expect(await ctx.store.claimOutbox({ owner: 'three', leaseMs: 60_000, limit: 10 })).toEqual([]);
      expect(await ctx.store.claimOutbox({ owner: 'one', leaseMs: 60_000, limit: 10, orderId: a })).toHaveLength(2);
      await ctx.store.releaseOutbox(a, 'someone-else');
      expect(await ctx.store.claimOutbox({ owner: 'three', leaseMs: 60_000, limit: 10, orderId: a })).toEqual([]);
      await ctx.store.releaseOutbox(a, 'one');
      expect((await ctx.store.claimOutbox({ owner: 'three', leaseMs: 60_000, limit: 10, orderId: a })).map((e) => e.orderId)).toEqual([a, a]);
    });

    it('lets another owner claim once the lease has expired', async () => {
      const a = await paidOrder();
      expect(await ctx.store.claimOutbox({ owner: 'one', leaseMs: 1, limit: 10 })).toHaveLength(2);
      await sleep(ctx.options.leaseWaitMs);
      expect(await ctx.store.claimOutbox({ owner: 'two', leaseMs: 60_000, limit: 10, orderId: a })).toHaveLength(2);
    });

    it('removes a completed entry; a failed one waits for its retry time; a given-up one is dead and never claimed', async () => {
      const a = await paidOrder();
      const claimed = await ctx.store.claimOutbox({ owner: 'one', leaseMs: 60_000, limit: 10 });
      const transition = nth(claimed, 0);
      const paid = nth(claimed, 1);
      await ctx.store.completeOutbox(transition.id);
      await ctx.store.failOutbox(paid.id, { error: 'mail server down', retryInMs: 60_000 });
      expect(await ctx.store.listOutbox({ orderId: a, limit: 10 })).toMatchObject([{ id: paid.id, attempts: 1, lastError: 'mail server down', status: 'pending' }]);
      const pending = nth(await ctx.store.listOutbox({ orderId: a, limit: 10 }), 0);
      expect(pending.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 30_000);
      // Not due: nobody claims it, not even its last owner (the failure cleared the lease).
      expect(await ctx.store.claimOutbox({ owner: 'two', leaseMs: 60_000, limit: 10 })).toEqual([]);
      await ctx.store.failOutbox(paid.id, { error: 'again', retryInMs: 0 });
      const again = await ctx.store.claimOutbox({ owner: 'two', leaseMs: 60_000, limit: 10 });
      expect(again).toMatchObject([{ id: paid.id, attempts: 2, lastError: 'again' }]);
      await ctx.store.failOutbox(paid.id, { error: 'for good', retryInMs: null });
      expect(await ctx.store.claimOutbox({ owner: 'three', leaseMs: 60_000, limit: 10 })).toEqual([]);
      expect(await ctx.store.listOutbox({ status: 'dead', limit: 10 })).toMatchObject([{ id: paid.id, status: 'dead', attempts: 3 }]);
      expect(await ctx.store.listOutbox({ status: 'pending', limit: 10 })).toEqual([]);
      expect(await ctx.store.countOutbox()).toEqual({ pending: 0, dead: 1 });
      await ctx.store.completeOutbox('no-such-entry');
      await ctx.store.failOutbox('no-such-entry', { error: 'x', retryInMs: 0 });
    });

    it("returns an order's entries that are not due yet with its due ones, so the dispatcher keeps their order", async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      await ctx.store.transition(input.id, 0, { state: 'paid' }, undefined, { outbox: [nth(PAID, 1)] });
      const paid = nth(await ctx.store.claimOutbox({ owner: 'one', leaseMs: 60_000, limit: 10 }), 0);
      await ctx.store.failOutbox(paid.id, { error: 'down', retryInMs: 60_000 });
      await ctx.store.transition(input.id, 1, { state: 'refunded' }, undefined, { outbox: [{ hook: 'onRefunded', payload: { source: 'admin', from: 'paid', to: 'refunded' } }] });
      const claimed = await ctx.store.claimOutbox({ owner: 'one', leaseMs: 60_000, limit: 10 });
      expect(claimed.map((e) => [e.hook, e.order.state, e.order.version])).toEqual([['onPaid', 'paid', 1], ['onRefunded', 'refunded', 2]]);
    });

    it('hands each order to exactly one of many concurrent claimers', async () => {
      const ids = await Promise.all(Array.from({ length: 6 }, () => paidOrder()));
      const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => ctx.store.claimOutbox({ owner: `owner-${i}`, leaseMs: 60_000, limit: 2 })));
      const holders = new Map<string, Set<number>>();
      claims.forEach((entries, i) => {
        for (const e of entries) holders.set(e.orderId, (holders.get(e.orderId) ?? new Set()).add(i));
      });
      for (const [, owners] of holders) expect(owners.size).toBe(1);
      const all = claims.flat().map((e) => e.id);
      expect(new Set(all).size).toBe(all.length);
      expect(all).toHaveLength(holders.size * 2);
      expect([...holders.keys()].every((id) => ids.includes(id))).toBe(true);
    });
  });
}
