/**
 * The revisit round's paging on its own (memory store, a gateway that knows every order): pages
 * by creation time, orders sharing a millisecond across a page boundary each asked about once,
 * passes at most once per revisitEveryMs, and what it leaves out.
 */
import { describe, expect, it } from 'vitest';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { createSweeper } from '../../../server/orders/sweeper.js';
import type { Order } from '../../../server/orders/types.js';
import { T0, fakeGateway, makeOrder, testClock } from './fixtures.js';

const HOUR = 3_600_000;

function setUp(limit: number) {
  const clock = testClock(T0 + HOUR);
  const store = createMemoryStore({ now: clock.now });
  const gateway = fakeGateway();
  const engine = createReconcileEngine({ store, gateway: gateway.port, now: clock.now });
  const sweeper = createSweeper({ engine, store, gateway: gateway.port, now: clock.now, revisitLimit: limit, revisitEveryMs: HOUR, batchSize: 100 });
  /** A paid order created at `T0 + ms` that the gateway reports paid. */
  const paid = async (ms: number): Promise<Order> => {
    const order = await makeOrder(store, { state: 'paid', createdAt: new Date(T0 + ms) });
    gateway.knows(order, { outcome: 'approved' });
    return order;
  };
  /** Order numbers asked about by each of ten runs that asked anything (the clock stands still: one pass). */
  const pass = async (): Promise<string[][]> => {
    const runs: string[][] = [];
    for (let i = 0; i < 10; i++) {
      const before = gateway.calls.length;
      await sweeper.runOnce();
      runs.push(gateway.calls.slice(before).flat());
    }
    return runs.filter((r) => r.length > 0);
  };
  return { clock, store, gateway, sweeper, paid, pass };
}

describe('sweeper: the revisit round\'s paging', () => {
  it('asks about every order once per pass when orders of one millisecond straddle page boundaries', async () => {
    const { paid, pass } = setUp(3);
    // Newest first, pages of 3: 50 40 40 | 40 30 20 | 20 10 — then 10, 20 and 40 straddle.
    const orders = await Promise.all([50, 40, 40, 40, 30, 20, 20, 10, 5].map((ms) => paid(ms)));
    const runs = await pass();
    expect(runs.flat().sort()).toEqual(orders.map((o) => o.orderNo).sort());
    expect(new Set(runs.flat()).size).toBe(orders.length);
  });

  it('starts the next pass only once revisitEveryMs has passed since this one started; an order created meanwhile is in it', async () => {
    const { clock, paid, pass, sweeper, gateway } = setUp(2);
    await Promise.all([1, 2, 3].map((ms) => paid(ms)));
    expect((await pass()).flat()).toHaveLength(3);
    const later = await paid(4);
    clock.advance(HOUR - 1);
    expect((await sweeper.runOnce()).revisits).toBeUndefined();
    expect(gateway.calls.flat()).not.toContain(later.orderNo);
    clock.advance(1);
    expect((await pass()).flat().sort()).toEqual(expect.arrayContaining([later.orderNo]));
  });

  it('more orders in one millisecond than a page holds: the pass moves on instead of reading the same page for ever', async () => {
    const { paid, pass } = setUp(2);
    await Promise.all([5, 5, 5, 5, 1].map((ms) => paid(ms)));
    const runs = await pass();
    // Two of the four tied orders are left to a later pass; the one before them is still reached.
    expect(runs.flat()).toHaveLength(3);
  });
});
