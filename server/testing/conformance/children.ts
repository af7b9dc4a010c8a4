/**
 * Child payments (a subscription's deductions): the parent link read back by every lookup,
 * kept through transitions and in outbox snapshots, and `listChildren` in creation order.
 * Skipped with `subscriptions: false` for an adapter without `listChildren`.
 */
import { describe, expect, it } from 'vitest';
import type { Order } from '../../orders/types.js';
import { createInOrder, type ConformanceContext } from './context.js';

async function listChildren(ctx: ConformanceContext, parentId: string): Promise<Order[]> {
  const list = ctx.store.listChildren?.bind(ctx.store);
  if (list === undefined) throw new Error('the store has no listChildren (pass { subscriptions: false } to skip these cases)');
  return list(parentId);
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
  });
}
