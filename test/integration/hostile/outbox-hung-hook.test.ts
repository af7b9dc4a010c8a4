/**
 * Hostile: a shop hook that never settles (an HTTP call without a timeout, a lock never freed).
 * Today the engine awaits the delivery with no bound, so the request that changed the order
 * never answers; and the dispatcher's background round, which chains each claimed order after
 * the run under way in this process, never finishes once it claims that order (its lease lapsed):
 * every other order's retries in this process stop with it, although the docs say other orders
 * are not held up. These tests assert the behaviour the docs promise and fail today; bounding a
 * hook call (say by the lease) trades that for a second delivery of a slow hook's eventId, a
 * design decision still open.
 */
import { describe, expect, it } from 'vitest';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { makeOrder } from '../orders/fixtures.js';

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
});
