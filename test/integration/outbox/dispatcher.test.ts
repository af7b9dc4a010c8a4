/**
 * The hook outbox's dispatcher through the engine: retries with capped exponential backoff and
 * the same eventId, giving up, per-order order, and picking up after a crash (real SQLite file).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { OrderHooks } from '../../../server/orders/hooks.js';
import { createOutboxDispatcher } from '../../../server/orders/outbox-dispatcher.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import { makeOrder, recordingHooks } from '../orders/fixtures.js';

/** A clock the store and the dispatcher share, moved by hand. */
function manualClock() {
  let t = Date.parse('2026-01-01T00:00:00Z');
  return { now: () => new Date(t), advance: (ms: number) => void (t += ms) };
}

/** A hook failing its first `failures` calls; records every eventId it was called with. */
function flaky(failures: number) {
  const ids: string[] = [];
  const hook = (_order: unknown, info: { eventId: string }): void => {
    ids.push(info.eventId);
    if (ids.length <= failures) throw new Error(`shop database unavailable (${String(ids.length)})`);
  };
  return { ids, hook };
}

describe('outbox dispatcher: retries', () => {
  it('retries a failing hook with exponential backoff, capped, with the same eventId, until it succeeds', async () => {
    const clock = manualClock();
    const store = createMemoryStore({ now: clock.now });
    const paid = flaky(3);
    const engine = createReconcileEngine({ store, hooks: { onPaid: paid.hook }, outbox: { now: clock.now, backoffMs: 1000, maxBackoffMs: 3000 } });
    const order = await makeOrder(store);
    expect((await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' })).status).toBe('applied');
    expect(paid.ids).toHaveLength(1);
    // Not due yet: a round changes nothing.
    expect(await engine.outbox.runOnce()).toBe(0);
    expect(paid.ids).toHaveLength(1);
    clock.advance(1000);
    expect(await engine.outbox.runOnce()).toBe(0);
    expect(paid.ids).toHaveLength(2);
    clock.advance(1999);
    await engine.outbox.runOnce();
    expect(paid.ids).toHaveLength(2);
    clock.advance(1);
    await engine.outbox.runOnce();
    expect(paid.ids).toHaveLength(3);
    clock.advance(3000); // capped: 4000 would have been next
    expect(await engine.outbox.runOnce()).toBe(1);
    expect(paid.ids).toHaveLength(4);
    expect(new Set(paid.ids).size).toBe(1);
    const failures = (await store.listEvents(order.id)).filter((e) => e.type === 'hook_failed');
    expect(failures.map((e) => e.data.retryInMs)).toEqual([1000, 2000, 3000]);
    expect(failures.map((e) => e.data.eventId)).toEqual([paid.ids[0], paid.ids[0], paid.ids[0]]);
    expect(await store.countOutbox()).toEqual({ pending: 0, dead: 0 });
    clock.advance(60_000);
    await engine.outbox.runOnce();
    expect(paid.ids).toHaveLength(4);
  });

  it('gives up after maxAttempts: the entry is dead, recorded, and the order\'s later hooks go on', async () => {
    const clock = manualClock();
    const store = createMemoryStore({ now: clock.now });
    const paid = flaky(100);
    const rec = recordingHooks({ onPaid: paid.hook });
    const engine = createReconcileEngine({ store, hooks: rec.hooks, outbox: { now: clock.now, backoffMs: 10, maxAttempts: 2 } });
    const order = await makeOrder(store);
    await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' });
    await engine.apply({ orderId: order.id, source: 'admin', outcome: 'refunded', refunds: [{ referenceId: 'TX-01', amount: 1000, status: 'succeeded' }] });
    // onRefunded waits behind the failing onPaid of the earlier change.
    expect(rec.count('onRefunded')).toBe(0);
    clock.advance(10);
    await engine.outbox.runOnce();
    expect(paid.ids).toHaveLength(2);
    expect(rec.count('onRefunded')).toBe(1);
    expect(await store.countOutbox()).toEqual({ pending: 0, dead: 1 });
    expect(await store.listOutbox({ status: 'dead', limit: 10 })).toMatchObject([{ hook: 'onPaid', attempts: 2, lastError: expect.stringMatching(/unavailable/) }]);
    const last = (await store.listEvents(order.id)).filter((e) => e.type === 'hook_failed').at(-1);
    expect(last?.data).toMatchObject({ hook: 'onPaid', gaveUp: true, attempts: 2 });
  });
});

describe('outbox dispatcher: order', () => {
  it("delivers an order's onPaid before its onRefunded even when onPaid needs retries; other orders are not held up", async () => {
    const clock = manualClock();
    const store = createMemoryStore({ now: clock.now });
    const seen: string[] = [];
    let failPaid = true;
    const hooks: OrderHooks = {
      onPaid: (order) => {
        if (failPaid && order.orderNo.startsWith('SLOW')) throw new Error('down');
        seen.push(`paid ${order.orderNo}`);
      },
      onRefunded: (order, info) => {
        seen.push(`refunded ${order.orderNo} ${info.from}→${info.to} ${String(info.refundedAmount)}`);
      },
    };
    const engine = createReconcileEngine({ store, hooks, outbox: { now: clock.now, backoffMs: 100 } });
    const slow = await makeOrder(store, { orderNo: 'SLOW-1' });
    const fast = await makeOrder(store, { orderNo: 'FAST-1' });
    for (const o of [slow, fast]) {
      await engine.apply({ orderId: o.id, source: 'notify', outcome: 'approved' });
      await engine.apply({ orderId: o.id, source: 'admin', outcome: 'partially_refunded', refunds: [{ referenceId: `${o.orderNo}-01`, amount: 300, status: 'succeeded' }] });
    }
    expect(seen).toEqual(['paid FAST-1', 'refunded FAST-1 paid→partially_refunded 300']);
    failPaid = false;
    clock.advance(100);
    await engine.outbox.runOnce();
    expect(seen.slice(2)).toEqual(['paid SLOW-1', 'refunded SLOW-1 paid→partially_refunded 300']);
  });

  it('hands each hook the order as its own transition left it, not as it is now', async () => {
    const store = createMemoryStore();
    const states: string[] = [];
    const failing = { on: true };
    const engine = createReconcileEngine({
      store,
      hooks: {
        onTransition: (order, info) => {
          if (failing.on && info.to === 'paid') throw new Error('later');
          states.push(`${info.to}:${order.state}:${String(order.refundedAmount)}`);
        },
      },
      outbox: { backoffMs: 1 },
    });
    const order = await makeOrder(store);
    await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' });
    await engine.apply({ orderId: order.id, source: 'admin', outcome: 'refunded', refunds: [{ referenceId: 'TX-01', amount: 1000, status: 'succeeded' }] });
    failing.on = false;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await engine.outbox.runOnce();
    expect(states).toEqual(['paid:paid:0', 'refunded:refunded:1000']);
  });
});

describe('outbox dispatcher: pick-up after a crash (SQLite file)', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('delivers on start what a process stored but never delivered, once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    const path = join(dir, 'shop.sqlite');
    const before = createSqliteStore({ path });
    const order = await makeOrder(before);
    // The transition and its owed calls are committed; the process dies before delivering them.
    const moved = await before.transition(order.id, 0, { state: 'paid', capturedAmount: 1000 }, { type: 'transition', source: 'notify' }, {
      outbox: [{ hook: 'onPaid', payload: { source: 'notify', from: 'created', to: 'paid' } }],
    });
    expect(moved.ok).toBe(true);
    await before.close();

    const after = createSqliteStore({ path });
    const calls: { state: string; eventId: string }[] = [];
    let resolveCalled: () => void = () => undefined;
    const called = new Promise<void>((resolve) => {
      resolveCalled = resolve;
    });
    const dispatcher = createOutboxDispatcher({
      store: after,
      hooks: {
        onPaid: (o, info) => {
          calls.push({ state: o.state, eventId: info.eventId });
          resolveCalled();
        },
      },
      intervalMs: 50,
    });
    dispatcher.start();
    await called;
    await new Promise((resolve) => setTimeout(resolve, 150)); // a few more rounds: nothing new
    await dispatcher.stop();
    expect(dispatcher.running).toBe(false);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.state).toBe('paid');
    expect(await after.countOutbox()).toEqual({ pending: 0, dead: 0 });
    await after.close();
  });
});
