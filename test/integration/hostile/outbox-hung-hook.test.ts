/**
 * Hostile: a shop hook that never settles (an HTTP call without a timeout, a lock never freed).
 * The engine used to await the delivery with no bound, so the request that changed the order
 * never answered, and the dispatcher's background round chained behind that run once its lease
 * lapsed, stopping every other order's retries. A hook is not timed out (that would deliver a
 * slow hook's eventId twice): the caller waits at most `waitMs`, the lease is renewed while the
 * hook runs, and a round skips an order already under way in its process.
 */
import { describe, expect, it } from 'vitest';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import { createOutboxDispatcher } from '../../../server/orders/outbox-dispatcher.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { makeOrder, memoryLogger } from '../orders/fixtures.js';

const never = (): Promise<void> => new Promise<void>(() => undefined);

describe('a hook that never settles', () => {
  it('the change that owes it still answers once the lease has lapsed', async () => {
    const store = createMemoryStore();
    const engine = createReconcileEngine({ store, hooks: { onPaid: never }, outbox: { leaseMs: 150, backoffMs: 10_000 } });
    const order = await makeOrder(store);
    const result = await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' });
    expect(result.status).toBe('applied');
  }, 3_000);

  it('other orders\' hooks are still delivered by the dispatcher\'s round', async () => {
    const store = createMemoryStore();
    const delivered: string[] = [];
    const hung = await makeOrder(store);
    const other = await makeOrder(store);
    const hooks = {
      onPaid: (o: { id: string }): Promise<void> | undefined => {
        if (o.id === hung.id) return never();
        delivered.push(o.id);
        return undefined;
      },
    };
    const engine = createReconcileEngine({ store, hooks, outbox: { leaseMs: 150, backoffMs: 10_000 } });
    void engine.apply({ orderId: hung.id, source: 'notify', outcome: 'approved' });
    await new Promise((r) => setTimeout(r, 20));
    await engine.apply({ orderId: other.id, source: 'notify', outcome: 'approved' });
    expect(delivered).toEqual([other.id]);
    // A background round after the lease lapsed does not hang on the hung order either.
    await new Promise((r) => setTimeout(r, 200));
    await engine.outbox.runOnce();
  }, 3_000);

  it('a slow hook keeps its order\'s lease: another dispatcher does not call it again meanwhile', async () => {
    const store = createMemoryStore();
    const calls: string[] = [];
    let finish = (): void => undefined;
    const slow = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const hooks = {
      onPaid: (_o: unknown, info: { eventId: string }): Promise<void> => {
        calls.push(info.eventId);
        return slow;
      },
    };
    const engine = createReconcileEngine({ store, hooks, outbox: { leaseMs: 150, backoffMs: 10_000, waitMs: 50 } });
    const order = await makeOrder(store);
    expect((await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' })).status).toBe('applied');
    expect(calls).toHaveLength(1);
    // Two lease lengths later another instance's round finds the order still leased.
    await new Promise((r) => setTimeout(r, 350));
    const other = createOutboxDispatcher({ store, hooks, owner: 'other-instance', leaseMs: 150 });
    expect(await other.runOnce()).toBe(0);
    expect(calls).toHaveLength(1);
    finish();
    await engine.outbox.stop();
    expect(await store.countOutbox()).toEqual({ pending: 0, dead: 0 });
  }, 3_000);

  it('stop() resolves after stopGraceMs, logging the order; the call goes on, still leased, so no one calls it twice', async () => {
    const store = createMemoryStore();
    const calls: { by: string; eventId: string }[] = [];
    let finish = (): void => undefined;
    const slow = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const hooks = (by: string) => ({
      onPaid: (_o: unknown, info: { eventId: string }): Promise<void> => {
        calls.push({ by, eventId: info.eventId });
        return slow;
      },
    });
    const { logger, lines } = memoryLogger();
    const engine = createReconcileEngine({ store, hooks: hooks('closing'), logger, outbox: { leaseMs: 150, backoffMs: 10_000, waitMs: 20, stopGraceMs: 100 } });
    const order = await makeOrder(store);
    expect((await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' })).status).toBe('applied');
    const started = Date.now();
    await engine.outbox.stop();
    expect(Date.now() - started).toBeLessThan(2_000);
    const warning = lines.map((l) => JSON.parse(l) as { level: string; msg: string; orders?: string[] }).find((l) => l.msg.startsWith('Hook calls still running'));
    expect(warning).toMatchObject({ level: 'warn', orders: [order.id] });
    expect(await store.countOutbox()).toEqual({ pending: 1, dead: 0 });
    // Two lease lengths later the call still holds its order: another instance does not call it again.
    await new Promise((r) => setTimeout(r, 350));
    const other = createOutboxDispatcher({ store, hooks: hooks('other'), owner: 'other-instance', leaseMs: 150 });
    expect(await other.runOnce()).toBe(0);
    // Once it settles, its entry is removed: delivered once.
    finish();
    await expect.poll(() => store.countOutbox()).toEqual({ pending: 0, dead: 0 });
    expect(calls.map((c) => c.by)).toEqual(['closing']);
  }, 5_000);

  it('after stop() gave up and start() ran again, the hung round ending does not start a second loop', async () => {
    const store = createMemoryStore();
    let rounds = 0;
    const counting = Object.assign(Object.create(store) as typeof store, {
      claimOutbox: (o: Parameters<typeof store.claimOutbox>[0]) => {
        if (o.orderId === undefined) rounds++;
        return store.claimOutbox(o);
      },
    });
    let finish = (): void => undefined;
    const slow = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const intervalMs = 20;
    let calls = 0;
    const hook = { onPaid: (): Promise<void> => { calls++; return slow; } };
    const dispatcher = createOutboxDispatcher({ store: counting, hooks: hook, intervalMs, leaseMs: 150, stopGraceMs: 50 });
    const order = await makeOrder(store);
    // The change is stored by an engine whose own dispatcher is stopped: the loop under test delivers it.
    const storing = createReconcileEngine({ store, hooks: hook });
    await storing.outbox.stop();
    await storing.apply({ orderId: order.id, source: 'notify', outcome: 'approved' });
    expect(await store.countOutbox()).toEqual({ pending: 1, dead: 0 });
    dispatcher.start();
    await expect.poll(() => calls).toBe(1);
    await dispatcher.stop();
    dispatcher.start();
    finish();
    await expect.poll(() => store.countOutbox()).toEqual({ pending: 0, dead: 0 });
    // One loop waits intervalMs after each round: it cannot make more rounds than this window allows.
    const before = rounds;
    const from = Date.now();
    await new Promise((r) => setTimeout(r, 300));
    const window = Date.now() - from;
    expect(rounds - before).toBeLessThanOrEqual(Math.ceil(window / intervalMs) + 1);
    await dispatcher.stop();
    expect(dispatcher.running).toBe(false);
  }, 5_000);

  it('stop() waits for a slow hook that finishes within stopGraceMs, and its entry is removed', async () => {
    const store = createMemoryStore();
    let calls = 0;
    const hooks = {
      onPaid: async (): Promise<void> => {
        calls++;
        await new Promise((r) => setTimeout(r, 150));
      },
    };
    const { logger, lines } = memoryLogger();
    const engine = createReconcileEngine({ store, hooks, logger, outbox: { leaseMs: 1_000, waitMs: 10, stopGraceMs: 3_000 } });
    const order = await makeOrder(store);
    await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' });
    await engine.outbox.stop();
    expect(calls).toBe(1);
    expect(await store.countOutbox()).toEqual({ pending: 0, dead: 0 });
    expect(lines.some((l) => l.includes('Hook calls still running'))).toBe(false);
  }, 5_000);
});
