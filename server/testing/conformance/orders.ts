/** Creating and reading orders: defaults, every lookup key, duplicates, fresh copies. */
import { describe, expect, it } from 'vitest';
import type { ConformanceContext } from './context.js';

export function orderCases(ctx: ConformanceContext): void {
  describe('create and get', () => {
    it('creates an order at version 0 with defaults and reads it back by id', async () => {
      const input = ctx.newOrder({ amount: 2599, currency: 'USD' });
      const created = await ctx.store.create(input);
      expect(created).toMatchObject({
        id: input.id,
        orderNo: input.orderNo,
        amount: 2599,
        currency: 'USD',
        state: 'created',
        version: 0,
        method: null,
        transactionId: null,
        maskedCard: null,
        capturedAmount: 0,
        refundedAmount: 0,
        attention: null,
        data: {},
      });
      expect(created.createdAt).toBeInstanceOf(Date);
      expect(created.updatedAt).toBeInstanceOf(Date);
      expect(await ctx.store.get(input.id)).toEqual(created);
    });

    it('keeps the given state, method, data and createdAt', async () => {
      const createdAt = new Date('2024-05-06T07:08:09.123Z');
      const input = ctx.newOrder({ state: 'pending', method: 'hosted', data: { shopper: { email: 'a@example.com' } }, createdAt });
      await ctx.store.create(input);
      const stored = await ctx.store.get(input.id);
      expect(stored).toMatchObject({ state: 'pending', method: 'hosted', version: 0, data: { shopper: { email: 'a@example.com' } } });
      expect(stored?.createdAt.getTime()).toBe(createdAt.getTime());
    });

    it('finds an order by order number, and by transaction id once a transition sets it', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      const txId = `tx-${input.id}`;
      expect((await ctx.store.getByOrderNo(input.orderNo))?.id).toBe(input.id);
      expect(await ctx.store.getByTransactionId(txId)).toBeNull();
      const result = await ctx.store.transition(input.id, 0, { state: 'pending', transactionId: txId });
      expect(result.ok).toBe(true);
      const byTx = await ctx.store.getByTransactionId(txId);
      expect(byTx).toMatchObject({ id: input.id, transactionId: txId, version: 1 });
      expect(await ctx.store.get(input.id)).toEqual(byTx);
    });

    it('answers null, not an error, for unknown keys', async () => {
      expect(await ctx.store.get('no-such-id')).toBeNull();
      expect(await ctx.store.getByOrderNo('no-such-order')).toBeNull();
      expect(await ctx.store.getByTransactionId('no-such-tx')).toBeNull();
    });
  });

  describe('duplicates', () => {
    it('refuses a taken order number with ERR_ORDER_EXISTS and keeps the first order', async () => {
      const first = ctx.newOrder({ amount: 100 });
      await ctx.store.create(first);
      const second = ctx.newOrder({ orderNo: first.orderNo, amount: 999 });
      await expect(ctx.store.create(second)).rejects.toMatchObject({ code: 'ERR_ORDER_EXISTS' });
      expect(await ctx.store.get(second.id)).toBeNull();
      expect(await ctx.store.getByOrderNo(first.orderNo)).toMatchObject({ id: first.id, amount: 100 });
    });

    it('refuses a taken id with ERR_ORDER_EXISTS', async () => {
      const first = ctx.newOrder();
      await ctx.store.create(first);
      const second = ctx.newOrder({ id: first.id });
      await expect(ctx.store.create(second)).rejects.toMatchObject({ code: 'ERR_ORDER_EXISTS' });
      expect(await ctx.store.getByOrderNo(second.orderNo)).toBeNull();
      expect((await ctx.store.get(first.id))?.orderNo).toBe(first.orderNo);
    });
  });

  describe('copies', () => {
    it('never lets a caller change stored orders by mutating inputs or results', async () => {
      const input = ctx.newOrder({ data: { nested: { n: 1 }, list: [1] } });
      const created = await ctx.store.create(input);
      (input.data as { nested: { n: number } }).nested.n = 2;
      (created.data.nested as { n: number }).n = 3;
      created.amount = 1;
      created.createdAt.setTime(0);
      const read = await ctx.store.get(input.id);
      expect(read?.data).toEqual({ nested: { n: 1 }, list: [1] });
      expect(read?.amount).toBe(1000);
      expect(read?.createdAt.getTime()).not.toBe(0);

      (read?.data.list as number[]).push(2);
      const patch = { data: { extra: { deep: true } } };
      const moved = await ctx.store.transition(input.id, 0, patch);
      patch.data.extra.deep = false;
      if (moved.ok) (moved.order.data.nested as { n: number }).n = 4;
      const listed = await ctx.store.list({ limit: 10 });
      (listed[0]?.data.extra as { deep: boolean }).deep = false;
      expect((await ctx.store.get(input.id))?.data).toEqual({ nested: { n: 1 }, list: [1], extra: { deep: true } });
    });
  });
}
