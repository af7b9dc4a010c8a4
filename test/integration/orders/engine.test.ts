/** The reconcile engine on a memory store: applying facts and hooks that fail (engine-confirm.test.ts: the rest). */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../server/errors.js';
import type { PaymentOutcome } from '../../../server/gateway/codes.js';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { PaymentFact } from '../../../server/orders/engine-types.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { PAN, engineSetup, makeOrder, recordingHooks } from './fixtures.js';

describe('reconcile engine: applying facts', () => {
  it('applies a fact as one CAS transition with its event and calls the hooks once', async () => {
    const { store, engine, rec } = engineSetup();
    const order = await makeOrder(store);
    const result = await engine.apply({
      orderNo: order.orderNo, source: 'notify', outcome: 'approved', amount: 1000, currency: 'EUR',
      transactionId: 'T-1', maskedCard: '424242******4242', dedupeKey: 'n-1', data: { resultCode: '0000' },
    });
    expect(result).toMatchObject({ status: 'applied', order: { state: 'paid', version: 1, transactionId: 'T-1', maskedCard: '424242******4242', capturedAmount: 1000 } });
    const events = await store.listEvents(order.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'transition', source: 'notify', actor: 'gateway', fromState: 'created', toState: 'paid', dedupeKey: 'n-1',
      data: { resultCode: '0000', outcome: 'approved', transactionId: 'T-1', amount: 1000, currency: 'EUR' },
    });
    expect(result.event).toEqual(events[0]);
    expect(rec.calls.map((c) => c.hook)).toEqual(['onTransition', 'onPaid']);
    expect(rec.calls[0]!.info).toEqual({ from: 'created', to: 'paid', source: 'notify', eventId: expect.any(String) });
    // Each call is its own outbox entry: its own eventId.
    expect(rec.calls[1]!.info).toMatchObject({ eventId: expect.any(String) });
    expect((rec.calls[1]!.info as { eventId: string }).eventId).not.toBe((rec.calls[0]!.info as { eventId: string }).eventId);
    expect(await store.getByTransactionId('T-1')).toMatchObject({ id: order.id });
  });

  it('calls hooks exactly once under 50 concurrent applies of the same fact (with a dedupe key)', async () => {
    const { store, engine, rec } = engineSetup();
    const order = await makeOrder(store);
    const fact: PaymentFact = { orderId: order.id, source: 'notify', outcome: 'approved', amount: 1000, currency: 'EUR', dedupeKey: 'same' };
    const results = await Promise.all(Array.from({ length: 50 }, () => engine.apply(fact)));
    expect(results.filter((r) => r.status === 'applied')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'duplicate')).toHaveLength(49);
    expect(rec.count('onPaid')).toBe(1);
    expect(rec.count('onTransition')).toBe(1);
    expect(await store.listEvents(order.id)).toHaveLength(1);
    expect((await store.get(order.id))!.version).toBe(1);
  });

  it('calls hooks exactly once under 50 concurrent applies without a dedupe key, across two engines', async () => {
    const store = createMemoryStore();
    const rec = recordingHooks();
    const a = createReconcileEngine({ store, hooks: rec.hooks, owner: 'process-a', leaseWaitMs: 5_000 });
    const b = createReconcileEngine({ store, hooks: rec.hooks, owner: 'process-b', leaseWaitMs: 5_000 });
    const order = await makeOrder(store);
    const fact: PaymentFact = { orderId: order.id, source: 'pay', outcome: 'authorized' };
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).apply(fact)));
    expect(results.filter((r) => r.status === 'applied')).toHaveLength(1);
    for (const r of results) expect(['applied', 'noop', 'busy']).toContain(r.status);
    expect(rec.count('onAuthorized')).toBe(1);
    expect(rec.count('onTransition')).toBe(1);
    expect((await store.listEvents(order.id)).filter((e) => e.type === 'transition')).toHaveLength(1);
  });

  it('lets only the CAS winner call hooks even when leases do not protect (expired leases)', async () => {
    const inner = createMemoryStore();
    const leaky: OrderStore = { ...inner, acquireLease: async () => Promise.resolve(true) };
    const rec = recordingHooks();
    const engines = Array.from({ length: 10 }, (_, i) => createReconcileEngine({ store: leaky, hooks: rec.hooks, owner: `p${i}` }));
    const order = await makeOrder(inner);
    const results = await Promise.all(engines.map((e) => e.apply({ orderId: order.id, source: 'notify', outcome: 'approved' })));
    expect(results.filter((r) => r.status === 'applied')).toHaveLength(1);
    expect(rec.count('onPaid')).toBe(1);
    expect((await inner.get(order.id))!.version).toBe(1);
  });

  it('answers duplicate for a dedupe key it has seen, even when the fact would be a noop', async () => {
    const { store, engine, rec } = engineSetup();
    const order = await makeOrder(store);
    expect((await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved', dedupeKey: 'k1' })).status).toBe('applied');
    expect((await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved', dedupeKey: 'k1' })).status).toBe('duplicate');
    const late = await engine.apply({ orderId: order.id, source: 'notify', outcome: 'pending', dedupeKey: 'k2' });
    expect(late).toMatchObject({ status: 'noop', reason: expect.stringMatching(/late/), event: { type: 'ignored', dedupeKey: 'k2' } });
    expect((await engine.apply({ orderId: order.id, source: 'notify', outcome: 'pending', dedupeKey: 'k2' })).status).toBe('duplicate');
    expect((await store.listEvents(order.id)).map((e) => e.type)).toEqual(['transition', 'ignored']);
    expect(rec.count('onPaid')).toBe(1);
    expect((await store.get(order.id))!.state).toBe('paid');
  });

  it('records an amount mismatch, flags the order, never applies it, and flags once', async () => {
    const { store, engine, rec } = engineSetup();
    const order = await makeOrder(store);
    const fact: PaymentFact = { orderNo: order.orderNo, source: 'notify', outcome: 'approved', amount: 999, currency: 'EUR', dedupeKey: 'm1' };
    const result = await engine.apply(fact);
    expect(result).toMatchObject({ status: 'mismatch', order: { state: 'created' }, event: { type: 'mismatch', dedupeKey: 'm1' } });
    const stored = (await store.get(order.id))!;
    expect(stored.state).toBe('created');
    expect(stored.attention).toMatch(/different amount/);
    expect(stored.attention).toMatch(/9\.99 EUR/);
    expect(rec.count('onAttention')).toBe(1);
    expect(rec.count('onPaid')).toBe(0);
    expect(rec.count('onTransition')).toBe(0);
    await engine.apply(fact);
    expect(rec.count('onAttention')).toBe(1);
    expect((await store.listEvents(order.id)).filter((e) => e.type === 'mismatch')).toHaveLength(1);
  });

  it('records a currency mismatch and does not apply it', async () => {
    const { store, engine, rec } = engineSetup();
    const order = await makeOrder(store);
    const result = await engine.apply({ orderId: order.id, source: 'pay', outcome: 'approved', amount: 1000, currency: 'USD' });
    expect(result.status).toBe('mismatch');
    expect((await store.get(order.id))!).toMatchObject({ state: 'created', attention: expect.stringMatching(/different currency/) });
    expect(rec.count('onPaid')).toBe(0);
    expect(rec.count('onAttention')).toBe(1);
  });

  it('turns a late approval after cancel into paid with attention, onAttention once', async () => {
    const { store, engine, rec } = engineSetup();
    const order = await makeOrder(store, { state: 'pending' });
    expect((await engine.apply({ orderId: order.id, source: 'cancel', outcome: 'cancelled' })).status).toBe('applied');
    const late = await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved', dedupeKey: 'late-1' });
    expect(late).toMatchObject({ status: 'applied', order: { state: 'paid', attention: expect.stringMatching(/after the order was cancelled/) } });
    expect(late.order!.data.attentionAt).toEqual(expect.any(String));
    await engine.apply({ orderId: order.id, source: 'sweeper', outcome: 'approved' });
    expect(rec.count('onCancelled')).toBe(1);
    expect(rec.count('onPaid')).toBe(1);
    expect(rec.count('onAttention')).toBe(1);
    const attention = rec.calls.find((c) => c.hook === 'onAttention')!;
    expect(attention.info).toMatch(/Ship the order, or refund the payment/);
  });

  it('reports refunds with the total of the ledger\'s succeeded rows', async () => {
    const { store, engine, rec } = engineSetup();
    const order = await makeOrder(store, { state: 'paid' });
    const one = (referenceId: string, amount: number) => ({ referenceId, amount, status: 'succeeded' as const });
    await engine.apply({ orderId: order.id, source: 'notify', outcome: 'partially_refunded', refunds: [one('T-01', 300)] });
    await engine.apply({ orderId: order.id, source: 'notify', outcome: 'partially_refunded', refunds: [one('T-01', 300)] });
    await engine.apply({ orderId: order.id, source: 'notify', outcome: 'partially_refunded', refunds: [one('T-02', 400)] });
    await engine.apply({ orderId: order.id, source: 'admin', actor: 'staff@shop', outcome: 'refunded', refunds: [one('T-03', 300)] });
    const refunds = rec.calls.filter((c) => c.hook === 'onRefunded').map((c) => (c.info as { refundedAmount: number }).refundedAmount);
    expect(refunds).toEqual([300, 700, 1000]);
    expect((await store.listEvents(order.id)).at(-1)).toMatchObject({ actor: 'staff@shop', source: 'admin', toState: 'refunded' });
  });

  it('records a rejected fact once and leaves the order alone', async () => {
    const { store, engine, rec } = engineSetup();
    // (A refund on a pending order is no longer illegal: it implies the capture, see engine-implied-capture.test.ts.)
    const order = await makeOrder(store, { state: 'in_review' });
    const first = await engine.apply({ orderId: order.id, source: 'sweeper', outcome: 'expired' });
    const again = await engine.apply({ orderId: order.id, source: 'sweeper', outcome: 'expired' });
    expect(first).toMatchObject({ status: 'rejected', reason: 'illegal transition in_review → expired', event: { type: 'rejected' } });
    expect(again.status).toBe('rejected');
    expect((await store.listEvents(order.id)).map((e) => e.type)).toEqual(['rejected']);
    expect((await store.get(order.id))!.state).toBe('in_review');
    expect(rec.calls).toEqual([]);
  });

  it('answers not_found for an unknown order and validates facts', async () => {
    const { engine } = engineSetup();
    expect(await engine.apply({ orderNo: 'nope', source: 'notify', outcome: 'approved' })).toMatchObject({ status: 'not_found', order: null });
    const missingId = await engine.apply({ source: 'notify', outcome: 'approved' }).catch((e: unknown) => e);
    expect(missingId).toBeInstanceOf(ValidationError);
    expect((missingId as ValidationError).field).toBe('orderId');
    const badAmount = await engine.apply({ orderNo: 'x', source: 'notify', outcome: 'approved', amount: 10.5 }).catch((e: unknown) => e);
    expect((badAmount as ValidationError).field).toBe('amount');
    const badOutcome = await engine.apply({ orderNo: 'x', source: 'notify', outcome: 'paid' as PaymentOutcome }).catch((e: unknown) => e);
    expect((badOutcome as ValidationError).field).toBe('outcome');
  });

  it('a fact it must confirm with the gateway answers busy when another process keeps the order lease', async () => {
    const { store, engine, rec, gateway } = engineSetup();
    const order = await makeOrder(store);
    gateway.knows(order);
    expect(await store.acquireLease(order.id, 'other-process', 60_000)).toBe(true);
    const result = await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved', confirm: true });
    expect(result.status).toBe('busy');
    expect((await store.get(order.id))!.state).toBe('created');
    expect(gateway.calls).toEqual([]);
    expect(rec.calls).toEqual([]);
  });

  it('a fact without a gateway round trip takes no lease: applied by compare-and-set, the lease untouched', async () => {
    const inner = createMemoryStore();
    const leases: string[] = [];
    const store: OrderStore = {
      ...inner,
      acquireLease: async (id, owner, ttlMs) => {
        leases.push(`acquire ${owner}`);
        return inner.acquireLease(id, owner, ttlMs);
      },
      releaseLease: async (id, owner) => {
        leases.push(`release ${owner}`);
        return inner.releaseLease(id, owner);
      },
    };
    const { engine, rec } = engineSetup({ store });
    const order = await makeOrder(inner);
    expect(await inner.acquireLease(order.id, 'other-process', 60_000)).toBe(true);
    const result = await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved', dedupeKey: 'n-1' });
    expect(result).toMatchObject({ status: 'applied', order: { state: 'paid', version: order.version + 1 } });
    expect(leases).toEqual([]);
    expect(rec.count('onPaid')).toBe(1);
    // The other owner still holds its lease: nothing released it.
    expect(await inner.acquireLease(order.id, 'third', 1_000)).toBe(false);
  });
});

describe('reconcile engine: hooks that fail', () => {
  it('records hook_failed, keeps the state, still calls the other hooks, and logs redacted', async () => {
    const rec = recordingHooks({
      onPaid: () => {
        throw new Error(`mail server down while sending receipt for ${PAN}`);
      },
    });
    const { store, engine, log } = engineSetup({ hooks: rec });
    const order = await makeOrder(store);
    const result = await engine.apply({ orderId: order.id, source: 'pay', outcome: 'approved' });
    expect(result.status).toBe('applied');
    expect((await store.get(order.id))!.state).toBe('paid');
    expect(rec.count('onTransition')).toBe(1);
    const events = await store.listEvents(order.id);
    expect(events.map((e) => e.type)).toEqual(['transition', 'hook_failed']);
    expect(events[1]).toMatchObject({ source: 'pay', toState: 'paid', data: { hook: 'onPaid', error: expect.stringMatching(/mail server down/) } });
    expect(JSON.stringify(events)).not.toContain(PAN);
    const line = log.lines.find((l) => l.includes('Order hook failed'));
    expect(line).toBeDefined();
    expect(line).not.toContain(PAN);
  });

  it('does not let an async hook rejection reach the caller', async () => {
    const rec = recordingHooks({ onAttention: async () => Promise.reject(new Error('pager offline')) });
    const { store, engine } = engineSetup({ hooks: rec });
    const order = await makeOrder(store, { state: 'expired' });
    await expect(engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' })).resolves.toMatchObject({ status: 'applied' });
    expect((await store.listEvents(order.id)).map((e) => e.type)).toEqual(['transition', 'hook_failed']);
  });
});
