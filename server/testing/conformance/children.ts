/**
 * Subscriptions: child payments (a subscription's deductions), whose parent link is read back by
 * every lookup, kept through transitions and in outbox snapshots, and `listChildren` in creation
 * order; and `listSubscriptions`, the live subscriptions paged by id. Skipped with
 * `subscriptions: false` for an adapter without `listChildren` and `listSubscriptions`.
 */
import { describe, expect, it } from 'vitest';
import type { Order } from '../../orders/types.js';
import { createInOrder, type ConformanceContext } from './context.js';

async function listChildren(ctx: ConformanceContext, parentId: string): Promise<Order[]> {
  const list = ctx.store.listChildren?.bind(ctx.store);
  if (list === undefined) throw new Error('the store has no listChildren (pass { subscriptions: false } to skip these cases)');
  return list(parentId);
}

async function listSubscriptions(ctx: ConformanceContext, after: string | undefined, limit: number): Promise<Order[]> {
  const list = ctx.store.listSubscriptions?.bind(ctx.store);
  if (list === undefined) throw new Error('the store has no listSubscriptions (pass { subscriptions: false } to skip these cases)');
  return list({ ...(after === undefined ? {} : { after }), limit });
}

export function childCases(ctx: ConformanceContext): void {
  describe.skipIf(!ctx.options.subscriptions)('child payments (subscription deductions)', () => {
    it('reads a child back with its parent by id, order number and transaction id; other orders carry no parentId', async () => {
      const parent = await ctx.store.create(ctx.newOrder({ state: 'paid' }));
      const input = ctx.newOrder({ parentId: parent.id, amount: 950, data: { recurringId: 'RC1', deductionTime: '2026-02-01' } });
      const child = await ctx.store.create(input);
      expect(child.parentId).toBe(parent.id);
      expect('parentId' in parent).toBe(false);
      expect('parentId' in ((await ctx.store.get(parent.id)) ?? {})).toBe(false);
      expect((await ctx.store.get(input.id))?.parentId).toBe(parent.id);
      expect((await ctx.store.getByOrderNo(input.orderNo))?.parentId).toBe(parent.id);
      const moved = await ctx.store.transition(input.id, 0, { state: 'paid', transactionId: 'TX-DEDUCTION-1', capturedAmount: 950 }, {
        type: 'transition', source: 'notify', fromState: 'created', toState: 'paid', dedupeKey: 'notify:deduction-1',
      }, { outbox: [{ hook: 'onRecurringCharge', payload: { source: 'notify', from: 'created', to: 'paid', status: 'paid' } }] });
      expect(moved.ok).toBe(true);
      if (!moved.ok) return;
      expect(moved.order.parentId).toBe(parent.id);
      expect((await ctx.store.getByTransactionId('TX-DEDUCTION-1'))?.id).toBe(input.id);
      const [entry] = await ctx.store.listOutbox({ orderId: input.id, limit: 10 });
      expect(entry).toMatchObject({ hook: 'onRecurringCharge', payload: { status: 'paid' } });
      expect(entry?.order.parentId).toBe(parent.id);
    });

    it('lists an order\'s children oldest first, only its own; none for an order without children or an unknown id', async () => {
      const parent = await ctx.store.create(ctx.newOrder({ state: 'paid' }));
      const other = await ctx.store.create(ctx.newOrder({ state: 'paid' }));
      const children = [ctx.newOrder({ parentId: parent.id }), ctx.newOrder({ parentId: other.id }), ctx.newOrder({ parentId: parent.id, state: 'declined' })];
      await createInOrder(ctx, children);
      const listed = await listChildren(ctx, parent.id);
      expect(listed.map((o) => o.id)).toEqual([children[0]?.id, children[2]?.id]);
      expect(listed.map((o) => o.state)).toEqual(['created', 'declined']);
      expect((await listChildren(ctx, other.id)).map((o) => o.id)).toEqual([children[1]?.id]);
      expect(await listChildren(ctx, children[0]?.id ?? '')).toEqual([]);
      expect(await listChildren(ctx, 'no-such-order')).toEqual([]);
    });

    it('refuses a second child with the same order number, leaving the first as it was', async () => {
      const parent = await ctx.store.create(ctx.newOrder({ state: 'paid' }));
      const first = ctx.newOrder({ parentId: parent.id });
      await ctx.store.create(first);
      await expect(ctx.store.create({ ...ctx.newOrder({ parentId: parent.id }), orderNo: first.orderNo })).rejects.toMatchObject({ code: 'ERR_ORDER_EXISTS' });
      expect((await listChildren(ctx, parent.id)).map((o) => o.id)).toEqual([first.id]);
    });

    it('pages through the live subscriptions by id: first payments with a recurring id, active or cancelled and not yet settled, never a deduction; kept up to date by transitions', async () => {
      const live = [
        ctx.newOrder({ state: 'paid', data: { recurringId: 'RC-A' } }),
        ctx.newOrder({ state: 'authorized', data: { recurringId: 'RC-B', subscriptionStatus: 'active' } }),
        ctx.newOrder({ state: 'paid', data: { recurringId: 'RC-C', note: 'x' } }),
        // Cancelled by staff, not yet asked about once more: a deduction charged before the cancel may still be owed.
        ctx.newOrder({ state: 'paid', data: { recurringId: 'RC-G', subscriptionStatus: 'cancelled' } }),
      ];
      const notLive = [
        ctx.newOrder({ state: 'paid' }),
        ctx.newOrder({ state: 'paid', data: { recurringId: 'RC-D', subscriptionStatus: 'ended' } }),
        ctx.newOrder({ state: 'paid', data: { recurringId: 'RC-E', subscriptionStatus: 'cancelled', subscriptionCancelSettled: true } }),
      ];
      for (const o of [...live, ...notLive]) await ctx.store.create(o);
      const parent = live[0];
      if (parent === undefined) return;
      await ctx.store.create(ctx.newOrder({ parentId: parent.id, state: 'paid', data: { recurringId: 'RC-A' } }));
      const ids = live.map((o) => o.id).sort();
      expect((await listSubscriptions(ctx, undefined, 10)).map((o) => o.id)).toEqual(ids);
      const first = await listSubscriptions(ctx, undefined, 2);
      expect(first.map((o) => o.id)).toEqual(ids.slice(0, 2));
      expect((await listSubscriptions(ctx, first.at(-1)?.id, 2)).map((o) => o.id)).toEqual(ids.slice(2, 4));
      expect(await listSubscriptions(ctx, ids.at(-1), 2)).toEqual([]);
      expect(await listSubscriptions(ctx, undefined, 0)).toEqual([]);

      // A subscription that ends leaves the list; an order that gains a recurring id joins it.
      const ended = await ctx.store.transition(parent.id, 0, { data: { subscriptionStatus: 'ended' } }, { type: 'details', source: 'sweeper', data: {} });
      expect(ended.ok).toBe(true);
      const joining = notLive[0];
      if (joining === undefined) return;
      const joined = await ctx.store.transition(joining.id, 0, { data: { recurringId: 'RC-F' } }, { type: 'details', source: 'notify', data: {} });
      expect(joined.ok).toBe(true);
      expect((await listSubscriptions(ctx, undefined, 10)).map((o) => o.id)).toEqual([...ids.filter((id) => id !== parent.id), joining.id].sort());
    });
  });
}
