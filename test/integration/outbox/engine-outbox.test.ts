/**
 * The engine and the outbox: owed hook calls are stored by the same compare-and-set as the
 * change, a change that loses stores none, and a delivery that cannot happen now (the process
 * stops, the store hiccups) is left for the dispatcher instead of lost.
 */
import { describe, expect, it } from 'vitest';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import { createOutboxDispatcher } from '../../../server/orders/outbox-dispatcher.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { makeOrder, recordingHooks } from '../orders/fixtures.js';

describe('engine: hooks through the outbox', () => {
  it('stores the owed calls with the transition and delivers them before apply resolves', async () => {
    const inner = createMemoryStore();
    const extras: unknown[] = [];
    const store: OrderStore = {
      ...inner,
      transition: (id, version, patch, event, more) => {
        extras.push(more);
        return inner.transition(id, version, patch, event, more);
      },
    };
    const rec = recordingHooks();
    const engine = createReconcileEngine({ store, hooks: rec.hooks });
    const order = await makeOrder(inner, { state: 'expired' });
    await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' });
    expect(extras).toEqual([
      {
        outbox: [
          { hook: 'onTransition', payload: { source: 'notify', from: 'expired', to: 'paid' } },
          { hook: 'onPaid', payload: { source: 'notify', from: 'expired', to: 'paid' } },
          { hook: 'onAttention', payload: { source: 'notify', reason: expect.stringMatching(/expired/) } },
        ],
      },
    ]);
    expect(rec.calls.map((c) => c.hook)).toEqual(['onTransition', 'onPaid', 'onAttention']);
    expect(rec.calls[2]?.info).toEqual(expect.stringMatching(/expired/));
    expect(await inner.countOutbox()).toEqual({ pending: 0, dead: 0 });
  });

  it('owes only the hooks the shop set, and nothing for a change that owes none', async () => {
    const inner = createMemoryStore();
    const engine = createReconcileEngine({ store: inner, hooks: { onPaid: () => undefined } });
    const order = await makeOrder(inner);
    await engine.apply({ orderId: order.id, source: 'pay', outcome: 'requires_action' });
    await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' });
    expect(await inner.countOutbox()).toEqual({ pending: 0, dead: 0 });
    const none = createReconcileEngine({ store: inner });
    const other = await makeOrder(inner);
    await none.apply({ orderId: other.id, source: 'notify', outcome: 'approved' });
    expect(await inner.listOutbox({ limit: 10 })).toEqual([]);
  });

  it('a delivery that cannot run now leaves the call in the outbox; the dispatcher delivers it later, once', async () => {
    const inner = createMemoryStore();
    let claimsFail = true;
    const store: OrderStore = {
      ...inner,
      claimOutbox: (claim) => (claimsFail ? Promise.reject(new Error('connection reset')) : inner.claimOutbox(claim)),
    };
    const rec = recordingHooks();
    const engine = createReconcileEngine({ store, hooks: rec.hooks });
    const order = await makeOrder(inner);
    expect(await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' })).toMatchObject({ status: 'applied' });
    expect(rec.calls).toEqual([]);
    expect((await inner.listOutbox({ orderId: order.id, limit: 10 })).map((e) => e.hook)).toEqual(['onTransition', 'onPaid']);
    claimsFail = false;
    // A fresh dispatcher, as after a restart.
    const restarted = createOutboxDispatcher({ store, hooks: rec.hooks });
    expect(await restarted.runOnce()).toBe(2);
    expect(await restarted.runOnce()).toBe(0);
    expect(rec.calls.map((c) => c.hook)).toEqual(['onTransition', 'onPaid']);
    expect(rec.calls[1]?.info).toMatchObject({ from: 'created', to: 'paid', source: 'notify', eventId: expect.any(String) });
  });

  it('a compare-and-set that loses stores no calls: one onPaid for ten concurrent approvals', async () => {
    const inner = createMemoryStore();
    const rec = recordingHooks();
    const engine = createReconcileEngine({ store: inner, hooks: rec.hooks });
    const order = await makeOrder(inner);
    await Promise.all(Array.from({ length: 10 }, (_, i) => engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved', dedupeKey: `n-${String(i % 3)}` })));
    expect(rec.count('onPaid')).toBe(1);
    expect(await inner.countOutbox()).toEqual({ pending: 0, dead: 0 });
  });
});

describe('engine: a hook that changes its own order', () => {
  it('a capture from onAuthorized is applied and its onPaid delivered by the run under way, without waiting on itself', async () => {
    const store = createMemoryStore();
    const calls: string[] = [];
    const engine = createReconcileEngine({
      store,
      hooks: {
        onAuthorized: async (order) => {
          calls.push('onAuthorized');
          const captured = await engine.apply({ orderId: order.id, source: 'admin', outcome: 'approved', capturedAmount: order.amount });
          calls.push(`capture ${captured.status}`);
        },
        onPaid: () => {
          calls.push('onPaid');
        },
      },
    });
    const order = await makeOrder(store);
    const result = await Promise.race([
      engine.apply({ orderId: order.id, source: 'notify', outcome: 'authorized' }),
      new Promise((resolve) => {
        setTimeout(() => {
          resolve('stuck');
        }, 5_000);
      }),
    ]);
    expect(result).toMatchObject({ status: 'applied' });
    expect(calls).toEqual(['onAuthorized', 'capture applied', 'onPaid']);
    expect((await store.get(order.id))?.state).toBe('paid');
    expect(await store.countOutbox()).toEqual({ pending: 0, dead: 0 });
  });
});
