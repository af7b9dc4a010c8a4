/**
 * `apply(fact, { known })`: the caller's fresh copy of the order saves the engine's reads, and a
 * stale copy is never trusted past the compare-and-set. Repeated facts are still told apart as
 * duplicates without the up-front event scan.
 */
import { describe, expect, it } from 'vitest';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import { countingStore, makeOrder, recordingHooks } from './fixtures.js';

describe('reconcile engine: the caller\'s copy of the order', () => {
  it('applies a fact without reading the order again when the caller passes it', async () => {
    const { store, reads } = countingStore();
    const rec = recordingHooks();
    const engine = createReconcileEngine({ store, hooks: rec.hooks });
    const order = await makeOrder(store);
    reads.get = 0;
    const result = await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved', amount: 1000, currency: 'EUR', dedupeKey: 'n-1' }, { known: order });
    expect(result).toMatchObject({ status: 'applied', order: { state: 'paid', version: 1 } });
    expect(reads).toEqual({ get: 0, listEvents: 0 });
    expect(rec.count('onPaid')).toBe(1);
  });

  it('reads the order once without a copy (not once to find it and again to settle it)', async () => {
    const { store, reads } = countingStore();
    const engine = createReconcileEngine({ store });
    const order = await makeOrder(store);
    reads.get = 0;
    await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved', amount: 1000, currency: 'EUR', dedupeKey: 'n-1' });
    expect(reads.get).toBe(1);
  });

  it('ignores a copy of another order', async () => {
    const { store } = countingStore();
    const engine = createReconcileEngine({ store });
    const order = await makeOrder(store);
    const other = await makeOrder(store);
    const result = await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved', amount: 1000, currency: 'EUR' }, { known: other });
    expect(result).toMatchObject({ status: 'applied', order: { id: order.id, state: 'paid' } });
    expect(await store.get(other.id)).toMatchObject({ state: 'created', version: 0 });
  });

  it('re-plans from the stored order when the copy is stale', async () => {
    const { store } = countingStore();
    const rec = recordingHooks();
    const engine = createReconcileEngine({ store, hooks: rec.hooks });
    const stale = await makeOrder(store);
    // Another writer moved the order to pending after the caller read it.
    await engine.apply({ orderId: stale.id, source: 'pay', outcome: 'pending', dedupeKey: 'pay:submitted' });
    const result = await engine.apply({ orderId: stale.id, source: 'notify', outcome: 'approved', amount: 1000, currency: 'EUR', dedupeKey: 'n-1' }, { known: stale });
    expect(result).toMatchObject({ status: 'applied', order: { state: 'paid', version: 2 } });
    expect((await store.listEvents(stale.id)).map((e) => [e.fromState, e.toState])).toEqual([['created', 'pending'], ['pending', 'paid']]);
    expect(rec.count('onPaid')).toBe(1);
  });

  it('answers a no-op from a copy only once a read shows it is current; a stale one is planned again', async () => {
    const { store, reads } = countingStore();
    const engine = createReconcileEngine({ store });
    const order = await makeOrder(store);
    const submitted = await engine.apply({ orderId: order.id, source: 'pay', outcome: 'pending', dedupeKey: 'pay:submitted' }, { known: order });
    if (submitted.order === null) throw new Error('not submitted');
    const copy = submitted.order;
    // The copy is current: its no-op costs one read to confirm it.
    reads.get = 0;
    expect(await engine.apply({ orderId: order.id, source: 'pay', outcome: 'pending' }, { known: copy })).toMatchObject({ status: 'noop', order: { state: 'pending', version: 1 } });
    expect(reads.get).toBe(1);
    // 3-D Secure is asked for after the copy was taken: for the copy the fact is "already
    // pending", for the stored order a move back to pending (same rank), with its dedupe key.
    expect((await engine.apply({ orderId: order.id, source: 'notify', outcome: 'requires_action', dedupeKey: 'n-3ds' })).status).toBe('applied');
    const result = await engine.apply({ orderId: order.id, source: 'notify', outcome: 'pending', dedupeKey: 'n-pending' }, { known: copy });
    expect(result).toMatchObject({ status: 'applied', order: { state: 'pending', version: 3 } });
    const events = await store.listEvents(order.id);
    expect(events.map((e) => [e.type, e.dedupeKey])).toEqual([['transition', 'pay:submitted'], ['transition', 'n-3ds'], ['transition', 'n-pending']]);
  });

  it('answers a no-op with the stored order, never with the stale copy it was planned from', async () => {
    const { store } = countingStore();
    const engine = createReconcileEngine({ store });
    const order = await makeOrder(store, { state: 'pending' });
    const stale = await store.get(order.id);
    if (stale === null) throw new Error('order not found');
    expect((await engine.apply({ orderId: order.id, source: 'notify', outcome: 'declined', amount: 1000, currency: 'EUR', dedupeKey: 'n-declined' })).status).toBe('applied');
    // "Already pending" for the stale copy; a late fact for the declined order: a no-op either
    // way, but answered with the order as stored.
    const again = await engine.apply({ orderId: order.id, source: 'pay', outcome: 'pending' }, { known: stale });
    expect(again).toMatchObject({ status: 'noop', order: { state: 'declined', version: 1 } });
  });

  it('with the lease held by the caller, applies from the copy read under it without reading the order again', async () => {
    const { store, reads } = countingStore();
    const rec = recordingHooks();
    const engine = createReconcileEngine({ store, hooks: rec.hooks });
    const order = await makeOrder(store, { state: 'pending' });
    expect(await store.acquireLease(order.id, 'sweeper-1', 60_000)).toBe(true);
    reads.get = 0;
    const result = await engine.apply({ orderId: order.id, source: 'sweeper', outcome: 'approved', amount: 1000, currency: 'EUR' }, { leaseOwner: 'sweeper-1', known: order });
    expect(result).toMatchObject({ status: 'applied', order: { state: 'paid', version: 1 } });
    expect(reads.get).toBe(0);
    expect(rec.count('onPaid')).toBe(1);
    // The caller keeps its lease: nobody else gets it until it is released.
    expect(await store.acquireLease(order.id, 'someone-else', 60_000)).toBe(false);
  });

  it('with the lease held by the caller, a copy a lease-free writer has since changed is caught and read afresh', async () => {
    const { store } = countingStore();
    const rec = recordingHooks();
    const engine = createReconcileEngine({ store, hooks: rec.hooks });
    const claimed = await makeOrder(store, { state: 'pending' });
    expect(await store.acquireLease(claimed.id, 'sweeper-1', 60_000)).toBe(true);
    // A notification (no lease) pays the order after the caller read its copy.
    expect((await engine.apply({ orderId: claimed.id, source: 'notify', outcome: 'approved', amount: 1000, currency: 'EUR', dedupeKey: 'n-1' })).status).toBe('applied');
    const result = await engine.apply({ orderId: claimed.id, source: 'sweeper', outcome: 'approved', amount: 1000, currency: 'EUR' }, { leaseOwner: 'sweeper-1', known: claimed });
    expect(result).toMatchObject({ status: 'noop', order: { state: 'paid', version: 1 } });
    expect((await store.listEvents(claimed.id)).filter((e) => e.type === 'transition')).toHaveLength(1);
    expect(rec.count('onPaid')).toBe(1);
  });

  it('reads the order afresh under a lease it takes itself, whatever copy the caller passed', async () => {
    const { store, reads } = countingStore();
    const engine = createReconcileEngine({ store });
    const order = await makeOrder(store, { state: 'paid' });
    reads.get = 0;
    // A refund takes the order's lease here; the copy was read before it was held.
    const result = await engine.apply({ orderId: order.id, source: 'admin', outcome: 'refunded', amount: 1000, currency: 'EUR', refunds: [{ referenceId: 'T-01', amount: 1000, status: 'succeeded' }] }, { known: order });
    expect(result).toMatchObject({ status: 'applied', order: { state: 'refunded' } });
    expect(reads.get).toBe(1);
  });

  it('answers duplicate for a repeated fact whatever its plan: transition, no-op or rejection', async () => {
    const { store } = countingStore();
    const engine = createReconcileEngine({ store });
    const order = await makeOrder(store);
    const paid = { orderId: order.id, source: 'notify' as const, outcome: 'approved' as const, amount: 1000, currency: 'EUR', dedupeKey: 'paid-1' };
    expect((await engine.apply(paid)).status).toBe('applied');
    expect((await engine.apply(paid)).status).toBe('duplicate');
    // A failure after the payment is rejected by the state machine once, then a duplicate.
    const failed = { orderId: order.id, source: 'notify' as const, outcome: 'declined' as const, amount: 1000, currency: 'EUR', dedupeKey: 'failed-1' };
    const first = await engine.apply(failed);
    expect(['rejected', 'noop']).toContain(first.status);
    expect((await engine.apply(failed)).status).toBe('duplicate');
    const events = await store.listEvents(order.id);
    expect(events.filter((e) => e.dedupeKey === 'paid-1')).toHaveLength(1);
    expect(events.filter((e) => e.dedupeKey === 'failed-1')).toHaveLength(1);
  });
});
