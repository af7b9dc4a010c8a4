import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../server/errors.js';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { createSweeper } from '../../../server/orders/sweeper.js';
import type { Sweeper, SweeperOptions } from '../../../server/orders/sweeper.js';
import type { OrderState } from '../../../server/orders/types.js';
import { T0, fakeGateway, makeOrder, recordingHooks, testClock } from './fixtures.js';

const MINUTE = 60_000;
const started: Sweeper[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

function setup(extra: Partial<SweeperOptions> = {}) {
  const clock = testClock();
  const store = createMemoryStore({ now: clock.now });
  const gateway = fakeGateway();
  const rec = recordingHooks();
  const engine = createReconcileEngine({ store, gateway: gateway.port, hooks: rec.hooks, now: clock.now });
  const sweeper = createSweeper({ engine, store, gateway: gateway.port, owner: 'sweeper-1', now: clock.now, ...extra });
  started.push(sweeper);
  return { clock, store, gateway, rec, engine, sweeper };
}

/** An order created `ageMs` ago (so last updated then) in `state`. */
function stuck(store: OrderStore, state: OrderState, ageMs: number, data: Record<string, unknown> = {}) {
  return makeOrder(store, { state, createdAt: new Date(T0 - ageMs), data });
}

describe('sweeper', () => {
  it('settles 250 stuck orders with 3 queries of at most 100', async () => {
    const { store, gateway, sweeper, rec } = setup();
    const orders = [];
    for (let i = 0; i < 250; i++) {
      const order = await stuck(store, i % 2 === 0 ? 'pending' : 'requires_action', 5 * MINUTE + i);
      gateway.knows(order);
      orders.push(order);
    }
    const report = await sweeper.runOnce();
    expect(report).toEqual({ claimed: 250, queries: 3, settled: 250, expired: 0, unchanged: 0, errors: 0 });
    expect(gateway.calls.map((c) => c.length)).toEqual([100, 100, 50]);
    expect(new Set(gateway.queriedOrderNos()).size).toBe(250);
    for (const order of orders) expect((await store.get(order.id))!.state).toBe('paid');
    expect(rec.count('onPaid')).toBe(250);
    const event = (await store.listEvents(orders[0]!.id))[0]!;
    expect(event).toMatchObject({ type: 'transition', source: 'sweeper', actor: 'sweeper', toState: 'paid' });
  });

  it('sweeps created orders only once they reached the gateway, and only stuck ones', async () => {
    const { store, gateway, sweeper } = setup();
    const neverSent = await stuck(store, 'created', 10 * MINUTE);
    const sent = await stuck(store, 'created', 10 * MINUTE, { submittedAt: new Date(T0 - 10 * MINUTE).toISOString() });
    const fresh = await stuck(store, 'pending', 30_000);
    const settled = await stuck(store, 'paid', 10 * MINUTE);
    for (const o of [neverSent, sent, fresh, settled]) gateway.knows(o);
    const report = await sweeper.runOnce();
    expect(gateway.queriedOrderNos()).toEqual([sent.orderNo]);
    expect(report).toMatchObject({ claimed: 1, settled: 1 });
    expect((await store.get(neverSent.id))!.state).toBe('created');
    expect((await store.get(fresh.id))!.state).toBe('pending');
  });

  it('expires an unknown order only when old enough, right after the query that found nothing', async () => {
    const { store, gateway, sweeper, rec } = setup();
    const young = await stuck(store, 'pending', 10 * MINUTE);
    const old = await stuck(store, 'requires_action', 31 * MINUTE);
    const report = await sweeper.runOnce();
    expect(gateway.queriedOrderNos().sort()).toEqual([young.orderNo, old.orderNo].sort());
    expect(report).toMatchObject({ expired: 1, unchanged: 1, errors: 0 });
    expect((await store.get(young.id))!.state).toBe('pending');
    expect((await store.get(old.id))!.state).toBe('expired');
    expect((await store.listEvents(old.id))[0]).toMatchObject({ source: 'sweeper', toState: 'expired', data: { reason: expect.stringMatching(/final query/) } });
    expect(rec.count('onExpired')).toBe(1);
  });

  it('uses submittedAt when it is later than the last update', async () => {
    const { store, sweeper } = setup();
    const order = await stuck(store, 'created', 40 * MINUTE, { submittedAt: new Date(T0 - 5 * MINUTE).toISOString() });
    expect(await sweeper.runOnce()).toMatchObject({ claimed: 1, unchanged: 1, expired: 0 });
    expect((await store.get(order.id))!.state).toBe('created');
  });

  it('leaves orders for the next run when the query fails, and never expires them', async () => {
    const { store, gateway, sweeper } = setup();
    const old = await stuck(store, 'pending', 45 * MINUTE);
    gateway.fail(new Error('gateway unreachable'));
    expect(await sweeper.runOnce()).toMatchObject({ claimed: 1, queries: 1, errors: 1, expired: 0 });
    expect((await store.get(old.id))!.state).toBe('pending');
    // leases were released: the next run picks the order up again
    gateway.fail(null);
    gateway.knows(old, { outcome: 'declined' });
    expect(await sweeper.runOnce()).toMatchObject({ settled: 1, errors: 0 });
    expect((await store.get(old.id))!.state).toBe('declined');
  });

  it('counts unchanged answers and keeps polling them on later runs', async () => {
    const { store, gateway, sweeper } = setup();
    const order = await stuck(store, 'pending', 5 * MINUTE);
    gateway.knows(order, { outcome: 'pending' });
    expect(await sweeper.runOnce()).toMatchObject({ claimed: 1, unchanged: 1 });
    expect(await sweeper.runOnce()).toMatchObject({ claimed: 1, unchanged: 1 });
    expect(gateway.calls).toHaveLength(2);
  });

  it('counts a mismatched answer as an error and flags the order', async () => {
    const { store, gateway, sweeper, clock } = setup();
    const order = await stuck(store, 'pending', 5 * MINUTE);
    gateway.knows(order, { currency: 'USD' });
    expect(await sweeper.runOnce()).toMatchObject({ errors: 1, settled: 0 });
    expect((await store.get(order.id))!).toMatchObject({ state: 'pending', attention: expect.stringMatching(/currency/) });
    // flagging touched the order; once stuck again it is polled: still not applied, not recorded twice
    clock.advance(3 * MINUTE);
    expect(await sweeper.runOnce()).toMatchObject({ errors: 1, settled: 0 });
    expect((await store.listEvents(order.id)).map((e) => e.type)).toEqual(['mismatch']);
  });

  it('two sweepers on one store settle each order exactly once', async () => {
    const clock = testClock();
    const store = createMemoryStore({ now: clock.now });
    const gateway = fakeGateway();
    const rec = recordingHooks();
    const make = (owner: string) => {
      const engine = createReconcileEngine({ store, gateway: gateway.port, hooks: rec.hooks, owner });
      const sweeper = createSweeper({ engine, store, gateway: gateway.port, owner, now: clock.now, batchSize: 20 });
      started.push(sweeper);
      return sweeper;
    };
    const a = make('instance-a');
    const b = make('instance-b');
    const orders = [];
    for (let i = 0; i < 120; i++) {
      const order = await stuck(store, 'pending', 5 * MINUTE + i);
      gateway.knows(order);
      orders.push(order);
    }
    const [ra, rb] = await Promise.all([a.runOnce(), b.runOnce()]);
    expect(ra.settled + rb.settled).toBe(120);
    expect(ra.claimed).toBeGreaterThan(0);
    expect(rb.claimed).toBeGreaterThan(0);
    const queried = gateway.queriedOrderNos();
    expect(queried).toHaveLength(120);
    expect(new Set(queried).size).toBe(120);
    for (const order of orders) expect(rec.count('onPaid', order.id)).toBe(1);
  });

  it('never overlaps runs: a second runOnce during a run shares it', async () => {
    const { store, gateway, sweeper } = setup();
    const order = await stuck(store, 'pending', 5 * MINUTE);
    gateway.knows(order);
    const open = gateway.hold();
    const first = sweeper.runOnce();
    const second = sweeper.runOnce();
    expect(second).toBe(first);
    open();
    expect(await first).toMatchObject({ settled: 1 });
    expect(gateway.calls).toHaveLength(1);
  });

  it('start() runs periodically and stop() waits for the run in progress, then stops cleanly', async () => {
    const { store, gateway, sweeper } = setup({ intervalMs: 1 });
    const order = await stuck(store, 'pending', 5 * MINUTE);
    gateway.knows(order);
    const open = gateway.hold();
    sweeper.start();
    sweeper.start(); // idempotent
    while (gateway.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    let stopped = false;
    const stopping = sweeper.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false); // the query is still held
    open();
    await stopping;
    expect((await store.get(order.id))!.state).toBe('paid');
    const calls = gateway.calls.length;
    const another = await stuck(store, 'pending', 5 * MINUTE);
    gateway.knows(another);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(gateway.calls).toHaveLength(calls); // no run after stop()
    expect((await store.get(another.id))!.state).toBe('pending');
  });

  it('rejects bad settings with a coded error', () => {
    const store = createMemoryStore();
    const gateway = fakeGateway();
    const engine = createReconcileEngine({ store });
    expect(() => createSweeper({ engine, store, gateway: gateway.port, batchSize: 101 })).toThrow(ConfigError);
    expect(() => createSweeper({ engine, store, gateway: gateway.port, intervalMs: 0 })).toThrow(/sweeper.intervalMs/);
  });
});
