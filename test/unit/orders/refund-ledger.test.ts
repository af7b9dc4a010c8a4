/**
 * The refund ledger's pure rules: how a reported refund merges into the rows (mergeRefunds) and
 * what the engine plans from them (ledgerStep): the derived outcome and amount, the guard on
 * pending refunds, totals without references, and totals carried over from before the ledger.
 */
import { describe, expect, it } from 'vitest';
import type { PaymentFact } from '../../../server/orders/engine-types.js';
import { ledgerStep, refundableOf } from '../../../server/orders/engine-refunds.js';
import { mergeRefunds, nextRefundStatus, refundedTotal } from '../../../server/orders/refunds.js';
import type { Refund, RefundUpsert } from '../../../server/orders/refunds.js';
import { initialOrder } from '../../../server/orders/types.js';
import type { Order } from '../../../server/orders/types.js';

const NOW = new Date('2026-01-01T00:00:00Z');
let ids = 0;
const ctx = { orderId: 'o1', now: NOW, newId: () => `new-${String(++ids)}` };
const order = (patch: Partial<Order> = {}): Order =>
  ({ ...initialOrder({ id: 'o1', orderNo: 'A-1', amount: 11_800, currency: 'EUR' }, NOW), state: 'paid', capturedAmount: 11_800, transactionId: 'T', ...patch });
const row = (patch: Partial<Refund>): Refund => ({
  id: 'r', orderId: 'o1', referenceId: null, reference: null, amount: 4_720, currency: 'EUR', status: 'succeeded', source: 'notify', createdAt: NOW, updatedAt: NOW, ...patch,
});
const up = (patch: Partial<RefundUpsert>): RefundUpsert => ({ amount: 4_720, currency: 'EUR', status: 'succeeded', source: 'admin', ...patch });
const fact = (patch: Partial<PaymentFact>): PaymentFact => ({ orderId: 'o1', source: 'notify', outcome: 'unknown', ...patch });

describe('mergeRefunds', () => {
  it('inserts an unknown reference, and the same one again changes nothing', () => {
    const once = mergeRefunds([], [up({ referenceId: 'T-01' })], ctx);
    expect(once.changes).toHaveLength(1);
    const twice = mergeRefunds(once.rows, [up({ referenceId: 'T-01', source: 'notify' })], ctx);
    expect(twice.changes).toEqual([]);
    expect(twice.rows).toEqual(once.rows);
  });

  it('status moves pending → succeeded/failed and failed → succeeded, never back from succeeded', () => {
    expect(nextRefundStatus('pending', 'succeeded')).toBe('succeeded');
    expect(nextRefundStatus('pending', 'failed')).toBe('failed');
    expect(nextRefundStatus('failed', 'succeeded')).toBe('succeeded');
    expect(nextRefundStatus('succeeded', 'failed')).toBe('succeeded');
    expect(nextRefundStatus('succeeded', 'pending')).toBe('succeeded');
    expect(nextRefundStatus('failed', 'pending')).toBe('failed');
  });

  it('a pending row takes the gateway amount and reference when it settles', () => {
    const { rows, changes } = mergeRefunds([row({ id: 'p', status: 'pending', amount: 500 })], [up({ id: 'p', referenceId: 'T-01', amount: 499 })], ctx);
    expect(rows).toEqual([expect.objectContaining({ id: 'p', referenceId: 'T-01', amount: 499, status: 'succeeded' })]);
    expect(changes.map((c) => c.kind)).toEqual(['update']);
  });

  it('folds a pending row into the row that already holds its reference', () => {
    const { rows, changes } = mergeRefunds([row({ id: 'p', status: 'pending' }), row({ id: 'n', referenceId: 'T-01' })], [up({ id: 'p', referenceId: 'T-01' })], ctx);
    expect(rows.map((r) => r.id)).toEqual(['n']);
    expect(changes).toEqual([{ kind: 'delete', row: expect.objectContaining({ id: 'p' }) }]);
  });

  it('an id naming a row tied to another reference is another refund', () => {
    const { rows } = mergeRefunds([row({ id: 'p', referenceId: 'T-01' })], [up({ id: 'p', referenceId: 'T-02' })], ctx);
    expect(rows.map((r) => r.referenceId)).toEqual(['T-01', 'T-02']);
    expect(new Set(rows.map((r) => r.id)).size).toBe(2);
  });
});

describe('ledgerStep', () => {
  it('derives partially_refunded, then refunded, from the succeeded rows', () => {
    const first = ledgerStep(order(), [], fact({ refunds: [{ referenceId: 'T-01', amount: 4_720, status: 'succeeded' }] }), NOW);
    expect(first.fact).toMatchObject({ outcome: 'partially_refunded', refundedAmount: 4_720 });
    const rows = [row({ id: 'a', referenceId: 'T-01' }), row({ id: 'b', referenceId: 'T-02' })];
    const last = ledgerStep(order({ state: 'partially_refunded' }), rows, fact({ refunds: [{ referenceId: 'T-03', amount: 2_360, status: 'succeeded' }] }), NOW);
    expect(last.fact).toMatchObject({ outcome: 'refunded', refundedAmount: 11_800 });
    expect(last.reasons).toEqual([]);
  });

  it('refuses a new pending row that does not fit beside succeeded and pending ones', () => {
    const rows = [row({ id: 'a', referenceId: 'T-01' }), row({ id: 'p', status: 'pending' })];
    expect(refundableOf(order(), rows)).toBe(2_360);
    const refused = ledgerStep(order(), rows, fact({ source: 'admin', refunds: [{ id: 'q', amount: 4_720, status: 'pending' }] }), NOW);
    expect(refused.refused).toMatch(/more than the 2360 EUR that remains refundable/);
    expect(refused.upserts).toEqual([]);
    const fits = ledgerStep(order(), rows, fact({ source: 'admin', refunds: [{ id: 'q', amount: 2_360, status: 'pending' }] }), NOW);
    expect(fits.refused).toBeUndefined();
    expect(fits.changed).toBe(true);
  });

  it('a notification that outruns the answer settles a pending row of the same amount', () => {
    const rows = [row({ id: 'p', status: 'pending', source: 'admin' })];
    const step = ledgerStep(order(), rows, fact({ refunds: [{ referenceId: 'T-01', amount: 4_720, status: 'succeeded' }] }), NOW);
    expect(step.upserts).toEqual([expect.objectContaining({ id: 'p', referenceId: 'T-01' })]);
  });

  it('a total without references is compared, never written', () => {
    const rows = [row({ id: 'a', referenceId: 'T-01' })];
    const differs = ledgerStep(order(), rows, fact({ outcome: 'partially_refunded', refundedAmount: 9_440 }), NOW);
    expect(differs.upserts).toEqual([]);
    expect(differs.fact.refundedAmount).toBe(4_720);
    expect(differs.reasons).toEqual([expect.stringMatching(/reports 9440 EUR refunded, the refund ledger holds 4720/)]);
    expect(ledgerStep(order(), rows, fact({ outcome: 'partially_refunded', refundedAmount: 4_720 }), NOW).reasons).toEqual([]);
  });

  it('a refund in another currency is not recorded and flags the order', () => {
    const step = ledgerStep(order(), [], fact({ refunds: [{ referenceId: 'T-01', amount: 100, currency: 'USD', status: 'succeeded' }] }), NOW);
    expect(step.upserts).toEqual([]);
    expect(step.reasons).toEqual([expect.stringMatching(/another currency/)]);
  });

  it('a total from before the ledger absorbs the references a gateway list gives for it', () => {
    const imported = [row({ id: 'import-o1', source: 'import', amount: 5_000 })];
    const same = ledgerStep(order(), imported, fact({ source: 'sweeper', listedRefunds: [{ referenceId: 'T-01', amount: 5_000, status: 'succeeded' }] }), NOW);
    expect(same.upserts).toEqual([]);
    expect(same.reasons).toEqual([]);
    expect(same.fact).toMatchObject({ outcome: 'partially_refunded', refundedAmount: 5_000 });
    // A new refund's notification, confirmed with the gateway's list: the new one counts, the old one not twice.
    const confirmed = ledgerStep(order(), imported, fact({
      refunds: [{ referenceId: 'T-02', amount: 3_000, status: 'succeeded' }],
      listedRefunds: [{ referenceId: 'T-01', amount: 5_000, status: 'succeeded' }, { referenceId: 'T-02', amount: 3_000, status: 'succeeded' }],
    }), NOW);
    expect(new Set(confirmed.upserts.map((u) => u.referenceId))).toEqual(new Set(['T-02']));
    expect(confirmed.reasons).toEqual([]);
    expect(confirmed.fact.refundedAmount).toBe(8_000);
    // The old refund reported again (its notification redelivered), with the list: the total already counts it.
    const replayed = ledgerStep(order(), imported, fact({
      refunds: [{ referenceId: 'T-01', amount: 5_000, status: 'succeeded' }],
      listedRefunds: [{ referenceId: 'T-01', amount: 5_000, status: 'succeeded' }],
    }), NOW);
    expect(replayed.upserts).toEqual([]);
    expect(replayed.reasons).toEqual([]);
    expect(replayed.fact.refundedAmount).toBe(5_000);
    // Without a list nothing tells it from a new refund: not recorded, and staff are told.
    const unlisted = ledgerStep(order(), imported, fact({ refunds: [{ referenceId: 'T-01', amount: 5_000, status: 'succeeded' }] }), NOW);
    expect(unlisted.upserts).toEqual([]);
    expect(unlisted.reasons.join(' ')).toMatch(/may already count/);
    // Without the import row the list is recorded in full.
    const plain = ledgerStep(order(), [], fact({ source: 'sweeper', listedRefunds: [{ referenceId: 'T-01', amount: 5_000, status: 'succeeded' }] }), NOW);
    expect(refundedTotal(mergeRefunds([], plain.upserts, ctx).rows)).toBe(5_000);
  });
});
