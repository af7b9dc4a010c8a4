/**
 * The refund ledger: rows written by `transition(…, extras.refunds)` in the transition's atomic
 * step, the same refund twice changing nothing, and `refundedAmount` derived from the succeeded
 * rows whatever the patch says, also under concurrent writers.
 */
import { describe, expect, it } from 'vitest';
import { isKitError } from '../../errors.js';
import type { RefundUpsert } from '../../orders/refunds.js';
import type { ConformanceContext } from './context.js';
import { sleep } from './context.js';

const ok = (referenceId: string, amount: number, extra: Partial<RefundUpsert> = {}): RefundUpsert =>
  ({ referenceId, amount, currency: 'EUR', status: 'succeeded', source: 'notify', ...extra });

export function refundCases(ctx: ConformanceContext): void {
  /** A paid order at version 1. */
  async function paid(): Promise<string> {
    const input = ctx.newOrder();
    await ctx.store.create(input);
    const moved = await ctx.store.transition(input.id, 0, { state: 'paid', capturedAmount: 1000, transactionId: `tx-${input.id}` });
    if (!moved.ok) throw new Error('could not set up a paid order');
    return input.id;
  }

  /** One compare-and-set with refunds, retried from the current version until it lands. */
  async function record(id: string, refunds: RefundUpsert[]): Promise<void> {
    for (;;) {
      const current = await ctx.store.get(id);
      if (!current) throw new Error('order vanished');
      const result = await ctx.store.transition(id, current.version, {}, { type: 'refund', source: 'notify' }, { refunds });
      if (result.ok) return;
    }
  }

  describe('refund ledger', () => {
    it('lists nothing for an unknown order or one without refunds', async () => {
      expect(await ctx.store.listRefunds('no-such-order')).toEqual([]);
      expect(await ctx.store.listRefunds(await paid())).toEqual([]);
    });

    it('writes rows with the transition and derives refundedAmount from the succeeded ones only', async () => {
      const id = await paid();
      const result = await ctx.store.transition(id, 1, { state: 'partially_refunded', refundedAmount: 999 }, { type: 'transition', source: 'notify' }, {
        refunds: [ok('T-01', 300, { reference: 'R-1' }), { id: 'pending-1', amount: 200, currency: 'EUR', status: 'pending', source: 'admin' }],
      });
      if (!result.ok) throw new Error('refused');
      // The patch's 999 is not written: the total comes from the rows.
      expect(result.order).toMatchObject({ state: 'partially_refunded', refundedAmount: 300, version: 2 });
      expect(await ctx.store.get(id)).toEqual(result.order);
      const rows = await ctx.store.listRefunds(id);
      expect(rows).toHaveLength(2);
      expect(rows.find((r) => r.referenceId === 'T-01')).toMatchObject({ orderId: id, reference: 'R-1', amount: 300, currency: 'EUR', status: 'succeeded', source: 'notify' });
      expect(rows.find((r) => r.id === 'pending-1')).toMatchObject({ referenceId: null, reference: null, amount: 200, status: 'pending', source: 'admin' });
      for (const row of rows) {
        expect(row.createdAt).toBeInstanceOf(Date);
        expect(row.updatedAt).toBeInstanceOf(Date);
      }
    });

    it('an empty list still derives the total, and the same reference twice changes nothing', async () => {
      const id = await paid();
      await record(id, [ok('T-01', 300)]);
      const first = await ctx.store.listRefunds(id);
      await sleep(3);
      await record(id, [ok('T-01', 300, { source: 'admin' })]);
      await record(id, []);
      expect(await ctx.store.listRefunds(id)).toEqual(first);
      expect((await ctx.store.get(id))?.refundedAmount).toBe(300);
    });

    it('a pending row settles once: gains its reference, succeeded never goes back, failed may still succeed', async () => {
      const id = await paid();
      await record(id, [{ id: 'p1', amount: 400, currency: 'EUR', status: 'pending', source: 'admin' }]);
      expect((await ctx.store.get(id))?.refundedAmount).toBe(0);
      await record(id, [{ id: 'p1', referenceId: 'T-01', reference: 'R-1', amount: 400, currency: 'EUR', status: 'succeeded', source: 'admin' }]);
      expect((await ctx.store.get(id))?.refundedAmount).toBe(400);
      await record(id, [{ id: 'p1', amount: 400, currency: 'EUR', status: 'failed', source: 'sweeper' }, ok('T-01', 400, { status: 'pending' })]);
      expect(await ctx.store.listRefunds(id)).toEqual([expect.objectContaining({ id: 'p1', referenceId: 'T-01', reference: 'R-1', status: 'succeeded' })]);
      await record(id, [ok('T-02', 100, { status: 'failed' })]);
      expect((await ctx.store.get(id))?.refundedAmount).toBe(400);
      await record(id, [ok('T-02', 100)]);
      expect((await ctx.store.get(id))?.refundedAmount).toBe(500);
    });

    it('folds a pending row into the row that already holds its reference (the notification came first)', async () => {
      const id = await paid();
      await record(id, [{ id: 'p1', amount: 250, currency: 'EUR', status: 'pending', source: 'admin' }]);
      await record(id, [ok('T-01', 250)]);
      expect(await ctx.store.listRefunds(id)).toHaveLength(2);
      await record(id, [{ id: 'p1', referenceId: 'T-01', amount: 250, currency: 'EUR', status: 'succeeded', source: 'admin' }]);
      const rows = await ctx.store.listRefunds(id);
      expect(rows).toEqual([expect.objectContaining({ referenceId: 'T-01', status: 'succeeded', amount: 250, source: 'notify' })]);
      expect((await ctx.store.get(id))?.refundedAmount).toBe(250);
    });

    it('a refused transition writes no refund row (stale version, repeated dedupe key)', async () => {
      const id = await paid();
      expect((await ctx.store.transition(id, 0, {}, undefined, { refunds: [ok('T-01', 100)] })).ok).toBe(false);
      await record(id, []);
      const version = (await ctx.store.get(id))?.version ?? -1;
      const keyed = { type: 'refund', source: 'notify' as const, dedupeKey: 'refund:T-09' };
      expect((await ctx.store.transition(id, version, {}, keyed, { refunds: [ok('T-09', 100)] })).ok).toBe(true);
      expect((await ctx.store.transition(id, version + 1, {}, keyed, { refunds: [ok('T-10', 100)] })).ok).toBe(false);
      expect((await ctx.store.listRefunds(id)).map((r) => r.referenceId)).toEqual(['T-09']);
      expect((await ctx.store.get(id))?.refundedAmount).toBe(100);
    });

    it('a refused transition from a stale copy (`known`) writes no refund row, with or without an event', async () => {
      const id = await paid();
      const stale = await ctx.store.get(id);
      if (stale === null) throw new Error('the order vanished');
      expect((await ctx.store.transition(id, stale.version, { attention: 'moved on' }, { type: 'attention', source: 'admin' })).ok).toBe(true);
      expect((await ctx.store.transition(id, stale.version, {}, undefined, { refunds: [ok('T-21', 100)] }, stale)).ok).toBe(false);
      expect((await ctx.store.transition(id, stale.version, {}, { type: 'refund', source: 'notify', dedupeKey: 'refund:T-22' }, { refunds: [ok('T-22', 100)] }, stale)).ok).toBe(false);
      await record(id, []);
      expect((await ctx.store.get(id))?.refundedAmount).toBe(0);
    });

    it('refuses a malformed refund with ERR_VALIDATION and writes nothing', async () => {
      const id = await paid();
      for (const bad of [ok('T-01', 0), ok('T-01', 1.5), ok('T-01', 10, { currency: 'eur' }), ok('T-01', 10, { status: 'done' as 'failed' })]) {
        const error = await ctx.store.transition(id, 1, {}, undefined, { refunds: [bad] }).catch((e: unknown) => e);
        expect(isKitError(error) && error.code).toBe('ERR_VALIDATION');
      }
      expect(await ctx.store.get(id)).toMatchObject({ version: 1, refundedAmount: 0 });
      expect(await ctx.store.listRefunds(id)).toEqual([]);
    });

    it('lists pending rows of every order created before a time, oldest first, up to the limit', async () => {
      const a = await paid();
      const b = await paid();
      await record(a, [{ id: `pa-${a}`, amount: 100, currency: 'EUR', status: 'pending', source: 'admin' }, ok('T-A1', 50)]);
      await sleep(5);
      await record(b, [{ id: `pb-${b}`, amount: 200, currency: 'EUR', status: 'pending', source: 'admin' }]);
      await sleep(5);
      const later = new Date(Date.now() + 60_000);
      const all = (await ctx.store.listPendingRefunds({ createdBefore: later, limit: 1000 })).filter((r) => r.orderId === a || r.orderId === b);
      expect(all.map((r) => r.id)).toEqual([`pa-${a}`, `pb-${b}`]);
      expect(await ctx.store.listPendingRefunds({ createdBefore: new Date(Date.now() - 3_600_000), limit: 10 })).toEqual([]);
      expect(await ctx.store.listPendingRefunds({ createdBefore: later, limit: 0 })).toEqual([]);
      await record(a, [{ id: `pa-${a}`, amount: 100, currency: 'EUR', status: 'failed', source: 'sweeper' }]);
      expect((await ctx.store.listPendingRefunds({ createdBefore: later, limit: 1000 })).some((r) => r.orderId === a)).toBe(false);
    });

    it('concurrent writers: every refund is recorded once and the total is their sum', async () => {
      const id = await paid();
      // Ten writers, each reporting its own refund and (again) its neighbour's.
      await Promise.all(Array.from({ length: 10 }, (_, i) => record(id, [ok(`T-${i}`, 10 + i), ok(`T-${(i + 1) % 10}`, 10 + ((i + 1) % 10))])));
      const rows = await ctx.store.listRefunds(id);
      expect(rows.map((r) => r.referenceId).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `T-${i}`).sort());
      const order = await ctx.store.get(id);
      expect(order?.refundedAmount).toBe(rows.reduce((sum, r) => sum + r.amount, 0));
      expect(order?.version).toBe(11);
    });
  });
}
