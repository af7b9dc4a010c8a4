/**
 * A refund or chargeback reported for an order that never recorded its capture (the payment's
 * notification was late or lost): the engine stores the implied capture first, then the refund,
 * so the order matches the gateway and `onPaid` and `onRefunded` each run once.
 */
import { describe, expect, it } from 'vitest';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { fakeGateway, makeOrder, recordingHooks } from './fixtures.js';

function setUp() {
  const store = createMemoryStore();
  const gateway = fakeGateway();
  const rec = recordingHooks();
  const engine = createReconcileEngine({ store, gateway: gateway.port, hooks: rec.hooks });
  return { store, gateway, rec, engine };
}

describe('a refund reaching an order that never saw its capture', () => {
  it('confirmed refund on a created order: paid, then refunded, each hook once', async () => {
    const { store, gateway, rec, engine } = setUp();
    const order = await makeOrder(store);
    gateway.knows(order, { outcome: 'refunded', refunds: [{ referenceId: 'T-01', amount: 1000, status: 'succeeded' }] });
    const result = await engine.apply({ orderId: order.id, source: 'notify', outcome: 'refunded', dedupeKey: 'refund-1', confirm: true });
    expect(result.status).toBe('applied');
    const stored = await store.get(order.id);
    expect(stored).toMatchObject({ state: 'refunded', capturedAmount: 1000, refundedAmount: 1000 });
    const transitions = (await store.listEvents(order.id)).filter((e) => e.type === 'transition').map((e) => `${String(e.fromState)}>${String(e.toState)}`);
    expect(transitions).toEqual(['created>paid', 'paid>refunded']);
    expect(rec.calls.map((c) => c.hook)).toEqual(['onTransition', 'onPaid', 'onTransition', 'onRefunded']);
    // The refund's dedupe key sits on the refund transition: a redelivery is a duplicate.
    expect((await engine.apply({ orderId: order.id, source: 'notify', outcome: 'refunded', dedupeKey: 'refund-1', confirm: true })).status).toBe('duplicate');
    expect(rec.calls).toHaveLength(4);
  });

  it('a partial refund on a pending order keeps the gateway amount; a payment fact afterwards is late', async () => {
    const { store, gateway, rec, engine } = setUp();
    const order = await makeOrder(store, { state: 'pending' });
    gateway.knows(order, { outcome: 'partially_refunded', refunds: [{ referenceId: 'T-01', amount: 300, status: 'succeeded' }] });
    expect((await engine.apply({ orderId: order.id, source: 'sweeper', outcome: 'approved', confirm: true })).status).toBe('applied');
    expect(await store.get(order.id)).toMatchObject({ state: 'partially_refunded', refundedAmount: 300 });
    expect(rec.count('onPaid')).toBe(1);
    expect(rec.count('onRefunded')).toBe(1);
    expect((await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' })).status).toBe('noop');
  });

  it('a chargeback on a declined order is late money: paid with attention, then the chargeback', async () => {
    const { store, rec, engine } = setUp();
    const order = await makeOrder(store, { state: 'declined' });
    expect((await engine.apply({ orderId: order.id, source: 'notify', outcome: 'chargeback' })).status).toBe('applied');
    const stored = await store.get(order.id);
    expect(stored?.state).toBe('chargeback');
    expect(stored?.attention).toMatch(/captured after the order was declined/);
    expect(rec.count('onPaid')).toBe(1);
    expect(rec.count('onChargeback')).toBe(1);
  });

  it('a refund without references on a charged-back order is not applied: only flagged for staff', async () => {
    const { store, rec, engine } = setUp();
    const order = await makeOrder(store, { state: 'chargeback' });
    expect((await engine.apply({ orderId: order.id, source: 'notify', outcome: 'refunded' })).status).not.toBe('applied');
    expect(await store.get(order.id)).toMatchObject({ state: 'chargeback', refundedAmount: 0, attention: expect.stringMatching(/refund ledger holds 0/) });
    expect(rec.calls.map((c) => c.hook)).toEqual(['onAttention']);
  });
});
