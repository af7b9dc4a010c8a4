import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../../server/errors.js';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { GatewayPort } from '../../../server/orders/engine-types.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { createSweeper } from '../../../server/orders/sweeper.js';
import type { Sweeper, SweeperOptions } from '../../../server/orders/sweeper.js';
import type { OrderState } from '../../../server/orders/types.js';
import { T0, countingStore, fakeGateway, makeOrder, recordingHooks, testClock } from './fixtures.js';

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

/** A promise and the function that resolves it (Promise.withResolvers, before Node 22). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
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

  it('settles claimed orders from the copies its claim returned, reading none of them again', async () => {
    const clock = testClock();
    const inner = createMemoryStore({ now: clock.now });
    const { store, reads } = countingStore(inner);
    const gateway = fakeGateway();
    const engine = createReconcileEngine({ store, gateway: gateway.port, now: clock.now });
    const sweeper = createSweeper({ engine, store, gateway: gateway.port, owner: 'sweeper-1', now: clock.now });
    started.push(sweeper);
    const orders = [];
    for (let i = 0; i < 20; i++) {
      const order = await stuck(store, 'pending', 10 * MINUTE + i);
      gateway.knows(order);
      orders.push(order);
    }
    reads.get = 0;
    expect(await sweeper.runOnce()).toMatchObject({ claimed: 20, settled: 20, errors: 0 });
    expect(reads.get).toBe(0);
    for (const order of orders) expect(await inner.get(order.id)).toMatchObject({ state: 'paid', version: 1 });
  });

  it('sweeps only pending and requires_action orders, and only stuck ones', async () => {
    // The revisit round (its own tests: sweeper-revisits.test.ts) would ask about the paid one.
    const { store, gateway, sweeper } = setup({ revisitLimit: 0 });
    const neverSent = await stuck(store, 'created', 10 * MINUTE);
    const sent = await stuck(store, 'pending', 10 * MINUTE);
    const challenged = await stuck(store, 'requires_action', 10 * MINUTE);
    const fresh = await stuck(store, 'pending', 30_000);
    const settled = await stuck(store, 'paid', 10 * MINUTE);
    for (const o of [neverSent, sent, challenged, fresh, settled]) gateway.knows(o);
    const report = await sweeper.runOnce();
    expect(gateway.queriedOrderNos().sort()).toEqual([sent.orderNo, challenged.orderNo].sort());
    expect(report).toMatchObject({ claimed: 2, settled: 2 });
    expect((await store.get(neverSent.id))!.state).toBe('created');
    expect((await store.get(fresh.id))!.state).toBe('pending');
  });

  it('never claims an order still created: it never reached the gateway, so no lease is taken', async () => {
    const { store, gateway, engine, clock } = setup();
    const claimedIds: string[] = [];
    const watched: OrderStore = {
      ...store,
      async claimDue(query) {
        const orders = await store.claimDue(query);
        claimedIds.push(...orders.map((o) => o.id));
        return orders;
      },
    };
    const sweeper = createSweeper({ engine, store: watched, gateway: gateway.port, owner: 'sweeper-1', now: clock.now });
    started.push(sweeper);
    // An abandoned cart, long idle and (as a trap) known to the gateway under its order number.
    const abandoned = await stuck(store, 'created', 60 * MINUTE);
    const open = await stuck(store, 'pending', 5 * MINUTE);
    gateway.knows(abandoned);
    gateway.knows(open);
    const release = gateway.hold();
    const run = sweeper.runOnce();
    try {
      while (gateway.calls.length === 0) await new Promise((resolve) => setImmediate(resolve));
      // Mid-run: the pending order is leased to the sweeper, the abandoned cart is free.
      expect(await store.acquireLease(open.id, 'other', MINUTE)).toBe(false);
      expect(await store.acquireLease(abandoned.id, 'other', MINUTE)).toBe(true);
      await store.releaseLease(abandoned.id, 'other');
    } finally {
      release();
    }
    expect(await run).toMatchObject({ claimed: 1, settled: 1, expired: 0 });
    expect(claimedIds).toEqual([open.id]);
    expect(gateway.queriedOrderNos()).toEqual([open.orderNo]);
    expect((await store.get(abandoned.id))!).toMatchObject({ state: 'created', version: 0 });
    expect(await store.listEvents(abandoned.id)).toEqual([]);
  });

  it('releases a settled order as soon as its answer is applied; unchanged ones stay leased until the run ends', async () => {
    const { store, gateway, engine, clock } = setup();
    const { promise: atSecond, resolve: reachSecond } = deferred();
    const { promise: secondGate, resolve: openSecond } = deferred();
    let queries = 0;
    const port: GatewayPort = {
      async queryOrders(orderNos) {
        if (++queries === 2) {
          reachSecond();
          await secondGate;
        }
        return gateway.port.queryOrders(orderNos);
      },
    };
    const sweeper = createSweeper({ engine, store, gateway: port, owner: 'sweeper-1', now: clock.now, batchSize: 2 });
    started.push(sweeper);
    // Oldest first: the first batch is [settled, unchanged], the second [later].
    const settled = await stuck(store, 'pending', 10 * MINUTE);
    const unchanged = await stuck(store, 'requires_action', 9 * MINUTE);
    const later = await stuck(store, 'pending', 8 * MINUTE);
    gateway.knows(settled);
    gateway.knows(unchanged, { outcome: 'requires_action' });
    gateway.knows(later);

    const run = sweeper.runOnce();
    try {
      await atSecond;
      // The second batch's query is waiting (it was sent while the first batch settled). Once the
      // first batch is applied, the settled order is free for a notification or the shopper.
      await vi.waitFor(async () => {
        expect((await store.get(settled.id))!.state).toBe('paid');
      }, { timeout: 2000, interval: 1 });
      expect(await store.acquireLease(settled.id, 'other', MINUTE)).toBe(true);
      await store.releaseLease(settled.id, 'other');
      // Still due, so still leased: that is what makes the next claim return the next orders.
      expect(await store.acquireLease(unchanged.id, 'other', MINUTE)).toBe(false);
      expect(await store.acquireLease(later.id, 'other', MINUTE)).toBe(false);
    } finally {
      openSecond();
    }
    expect(await run).toEqual({ claimed: 3, queries: 2, settled: 2, expired: 0, unchanged: 1, errors: 0 });
    expect(gateway.calls).toEqual([[settled.orderNo, unchanged.orderNo], [later.orderNo]]);
    // The run is over: nothing is left leased.
    for (const order of [settled, unchanged, later]) expect(await store.acquireLease(order.id, 'after', MINUTE)).toBe(true);
  });

  it('asks the gateway about the next batch while the current one settles', async () => {
    const { store, gateway, engine, clock } = setup();
    const { promise: second, resolve: secondAsked } = deferred();
    let queries = 0;
    const port: GatewayPort = {
      async queryOrders(orderNos) {
        // The first answer waits for the second question: a sweeper that asked one batch at a
        // time would never send it.
        if (++queries === 1) await Promise.race([second, sleep(1000)]);
        else secondAsked();
        return gateway.port.queryOrders(orderNos);
      },
    };
    const sweeper = createSweeper({ engine, store, gateway: port, owner: 'sweeper-1', now: clock.now, batchSize: 2 });
    started.push(sweeper);
    const orders = [];
    for (let i = 0; i < 5; i++) {
      const order = await stuck(store, 'pending', 10 * MINUTE - i);
      gateway.knows(order);
      orders.push(order);
    }
    const report = await sweeper.runOnce();
    expect(report).toEqual({ claimed: 5, queries: 3, settled: 5, expired: 0, unchanged: 0, errors: 0 });
    expect(queries).toBe(3);
    // The second batch reached the gateway while the first answer was held: they overlapped.
    expect(gateway.calls).toEqual([[orders[2]!.orderNo, orders[3]!.orderNo], [orders[0]!.orderNo, orders[1]!.orderNo], [orders[4]!.orderNo]]);
    for (const order of orders) expect((await store.get(order.id))!.state).toBe('paid');
  });

  it('releases every lease it claimed when the run ends, the batches claimed ahead included', async () => {
    const { store, gateway, engine, clock } = setup();
    const sweeper = createSweeper({ engine, store, gateway: gateway.port, owner: 'sweeper-1', now: clock.now, batchSize: 2 });
    started.push(sweeper);
    const orders = [];
    for (let i = 0; i < 4; i++) orders.push(await stuck(store, 'pending', 10 * MINUTE - i));
    // Unknown and too young to expire: every order stays unchanged, so only the run's end releases them.
    const report = await sweeper.runOnce();
    expect(report).toMatchObject({ claimed: 4, unchanged: 4, errors: 0 });
    for (const order of orders) expect(await store.acquireLease(order.id, 'after', MINUTE)).toBe(true);
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
    const order = await stuck(store, 'pending', 40 * MINUTE, { submittedAt: new Date(T0 - 5 * MINUTE).toISOString() });
    expect(await sweeper.runOnce()).toMatchObject({ claimed: 1, unchanged: 1, expired: 0 });
    expect((await store.get(order.id))!.state).toBe('pending');
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
