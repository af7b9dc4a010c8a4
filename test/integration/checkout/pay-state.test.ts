/**
 * Submitting an order before the pay route sends anything: through the reconcile engine,
 * created → pending under the dedupe key `pay:submitted`, on a real SQLite file shared by two
 * engines (as two processes share a database). Only the one caller whose fact made that move
 * may send; every other answer (duplicate, noop, busy) means "do not send".
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markSubmitted, SUBMITTED_KEY, type SubmitContext } from '../../../server/checkout/pay/submit.js';
import { silentLogger } from '../../../server/logging.js';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import type { Order, OrderState } from '../../../server/orders/types.js';
import { recordingHooks } from '../orders/fixtures.js';

let dir: string;
let store: OrderStore & { close(): Promise<void> };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pay-state-'));
  store = createSqliteStore({ path: join(dir, 'orders.sqlite') });
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Two "processes": one engine each, one shared store and one shared hook record. */
function twoInstances(leaseWaitMs = 2_000) {
  const rec = recordingHooks();
  const ctx = (owner: string): SubmitContext => ({
    store,
    logger: silentLogger,
    engine: createReconcileEngine({ store, hooks: rec.hooks, owner, leaseWaitMs }),
  });
  return { rec, a: ctx('instance-a'), b: ctx('instance-b') };
}

async function newOrder(state?: OrderState): Promise<Order> {
  return store.create({ id: randomUUID(), orderNo: `PS-${randomUUID().slice(0, 13)}`, amount: 2500, currency: 'EUR', ...(state ? { state } : {}) });
}

describe('markSubmitted', () => {
  it('concurrent submissions on two instances: exactly one may send; one created → pending, one onTransition', async () => {
    const { rec, a, b } = twoInstances();
    const order = await newOrder();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => markSubmitted(i % 2 === 0 ? a : b, order, i % 2 === 0 ? 'card' : 'hosted')),
    );
    const winners = results.filter((r): r is Order => r !== null);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!;
    expect(winner).toMatchObject({ state: 'pending', method: winner.data.method });
    expect(typeof winner.data.submittedAt).toBe('string');

    const stored = (await store.get(order.id))!;
    expect(stored).toMatchObject({ state: 'pending', method: winner.method, data: { method: winner.method } });
    const events = await store.listEvents(order.id);
    expect(events.filter((e) => e.dedupeKey === SUBMITTED_KEY)).toMatchObject([
      { type: 'transition', source: 'pay', actor: 'shopper', fromState: 'created', toState: 'pending', data: { method: winner.method } },
    ]);
    expect(events.filter((e) => e.type === 'transition')).toHaveLength(1);
    expect(rec.calls.filter((c) => c.hook === 'onTransition')).toEqual([
      { hook: 'onTransition', orderId: order.id, info: { from: 'created', to: 'pending', source: 'pay', eventId: expect.any(String) } },
    ]);
    // A later submission is a duplicate: not sent, nothing written.
    expect(await markSubmitted(a, order, 'card')).toBeNull();
    expect(await store.listEvents(order.id)).toHaveLength(events.length);
  });

  it('takes no lease: one compare-and-set stores state, method and event, even while another owner holds the lease', async () => {
    const { a } = twoInstances(50);
    const order = await newOrder();
    expect(await store.acquireLease(order.id, 'someone-else', 60_000)).toBe(true);
    // The submission talks to no gateway, so the compare-and-set alone picks its one winner.
    expect(await markSubmitted(a, order, 'card')).toMatchObject({ state: 'pending', method: 'card', version: 1 });
    expect((await store.get(order.id))!).toMatchObject({ state: 'pending', method: 'card', version: 1 });
    expect((await store.listEvents(order.id)).map((e) => [e.type, e.dedupeKey])).toEqual([['transition', SUBMITTED_KEY]]);
    expect(await markSubmitted(a, order, 'card')).toBeNull();
    await store.releaseLease(order.id, 'someone-else');
  });

  it.each(['pending', 'paid', 'cancelled', 'expired'] as const)('an order already %s is not sent and does not move', async (state) => {
    const { rec, a } = twoInstances();
    const order = await newOrder(state);
    expect(await markSubmitted(a, order, 'card')).toBeNull();
    expect((await store.get(order.id))!.state).toBe(state);
    expect(rec.calls).toEqual([]);
  });
});
