/** Values survive storage exactly: minor-unit amounts, JSON with any Unicode, dates as Date, data as JSON. */
import { describe, expect, it } from 'vitest';
import type { ConformanceContext } from './context.js';

const AMOUNTS: [number, string][] = [
  [0, 'EUR'],
  [1, 'EUR'],
  [123_456, 'JPY'],
  [1_234_567, 'KWD'],
  [Number.MAX_SAFE_INTEGER, 'USD'],
];

const DATA = {
  shopper: { name: '山田 太郎', city: 'Zürich', greeting: 'مرحبا', accent: 'e\u0301' },
  emoji: '💳🧾👩🏽‍💻',
  text: 'quotes " and \' backslash \\ newline \n tab \t',
  numbers: { zero: 0, negative: -5, fraction: 12.5, big: Number.MAX_SAFE_INTEGER },
  flags: [true, false, null],
  nested: { a: { b: { c: { d: ['deep', { e: [] }] } } } },
  empty: {},
  items: [{ name: 'Thé vert', sku: 'TV-1', price: 450, quantity: 2 }],
};

export function valueCases(ctx: ConformanceContext): void {
  describe('values', () => {
    it.each(AMOUNTS)('keeps %d minor units of %s exactly', async (amount, currency) => {
      const input = ctx.newOrder({ amount, currency, data: { amount } });
      await ctx.store.create(input);
      const moved = await ctx.store.transition(input.id, 0, { capturedAmount: amount, refundedAmount: amount }, {
        type: 'admin_action',
        source: 'admin',
        data: { amount },
      });
      expect(moved.ok).toBe(true);
      const stored = await ctx.store.get(input.id);
      expect(stored).toMatchObject({ amount, currency, capturedAmount: amount, refundedAmount: amount, data: { amount } });
      for (const value of [stored?.amount, stored?.capturedAmount, stored?.refundedAmount]) {
        expect(Number.isSafeInteger(value)).toBe(true);
      }
      expect((await ctx.store.listEvents(input.id))[0]?.data).toEqual({ amount });
    });

    it('round-trips nested Unicode JSON in order and event data', async () => {
      const input = ctx.newOrder({ data: DATA });
      await ctx.store.create(input);
      expect((await ctx.store.get(input.id))?.data).toEqual(DATA);
      await ctx.store.transition(input.id, 0, { data: { reply: DATA.shopper } }, { type: 'transition', source: 'pay', data: DATA });
      expect((await ctx.store.get(input.id))?.data).toEqual({ ...DATA, reply: DATA.shopper });
      expect((await ctx.store.listEvents(input.id))[0]?.data).toEqual(DATA);
      expect((await ctx.store.getByOrderNo(input.orderNo))?.data.emoji).toBe('💳🧾👩🏽‍💻');
    });

    it('keeps data as JSON: a Date as its ISO text, an undefined value as no key (in a patch: the stored value stays)', async () => {
      const at = new Date('2024-02-29T23:59:59.987Z');
      const input = ctx.newOrder({ data: { at, gone: undefined, kept: 'yes' } });
      await ctx.store.create(input);
      const created = await ctx.store.get(input.id);
      expect(created?.data.at).toBe(at.toISOString());
      expect(Object.keys(created?.data ?? {})).not.toContain('gone');
      const moved = await ctx.store.transition(input.id, 0, { data: { kept: undefined, when: at } }, { type: 'details', source: 'api', data: { at, gone: undefined } });
      if (!moved.ok) throw new Error('transition from the current version was refused');
      for (const order of [moved.order, await ctx.store.get(input.id)]) {
        expect(order?.data.kept).toBe('yes');
        expect(order?.data.when).toBe(at.toISOString());
      }
      const [event] = await ctx.store.listEvents(input.id);
      expect(event?.data.at).toBe(at.toISOString());
      expect(Object.keys(event?.data ?? {})).not.toContain('gone');
    });

    it('returns dates as Date with millisecond precision', async () => {
      const createdAt = new Date('2024-02-29T23:59:59.987Z');
      const input = ctx.newOrder({ createdAt });
      await ctx.store.create(input);
      await ctx.store.appendEvent(input.id, { type: 'return_hint', source: 'return' });
      const orders = [await ctx.store.get(input.id), (await ctx.store.list({ limit: 1 }))[0]];
      for (const order of orders) {
        expect(order?.createdAt).toBeInstanceOf(Date);
        expect(order?.createdAt.getTime()).toBe(createdAt.getTime());
        expect(order?.updatedAt).toBeInstanceOf(Date);
      }
      const [event] = await ctx.store.listEvents(input.id);
      expect(event?.createdAt).toBeInstanceOf(Date);
      expect(Number.isNaN(event?.createdAt.getTime())).toBe(false);
    });

    it('keeps the masked card exactly as the gateway returned it', async () => {
      const input = ctx.newOrder();
      await ctx.store.create(input);
      await ctx.store.transition(input.id, 0, { maskedCard: '424242******4242' });
      expect((await ctx.store.get(input.id))?.maskedCard).toBe('424242******4242');
    });
  });
}
