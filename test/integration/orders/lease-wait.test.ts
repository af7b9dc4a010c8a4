/**
 * A fact waiting for an order's lease must not block a caller of the same process that already
 * holds that lease. The sweeper claims (leases) its orders for the whole run; a notification for
 * one of them arriving on the same instance waits for that lease. It must wait outside the
 * process's per-order queue, or the sweeper's own apply queues behind it until the notification
 * gives up, stretching the run (and every lease it holds) by the wait, once per such order.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { createSweeper } from '../../../server/orders/sweeper.js';
import { fakeGateway, makeOrder, recordingHooks } from './fixtures.js';

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await sleep(5);
  }
  throw new Error('condition never met');
}

describe('order lease waits', () => {
  it('a notification waiting for the sweeper\'s lease does not hold up that sweeper', async () => {
    const inner = createMemoryStore();
    const tries: string[] = [];
    const store: OrderStore = {
      ...inner,
      acquireLease: async (id, owner, ttlMs) => {
        tries.push(owner);
        return inner.acquireLease(id, owner, ttlMs);
      },
    };
    const gateway = fakeGateway();
    const rec = recordingHooks();
    const engine = createReconcileEngine({ store, gateway: gateway.port, hooks: rec.hooks, owner: 'shop-1', leaseWaitMs: 3_000 });
    const sweeper = createSweeper({ engine, store, gateway: gateway.port, owner: 'shop-1-sweeper', stuckAfterMs: 1 });
    const order = await makeOrder(inner, { state: 'pending', createdAt: new Date(Date.now() - 60_000) });
    gateway.knows(order);

    // The sweeper claims the order, then waits for the gateway's answer.
    const open = gateway.hold();
    const run = sweeper.runOnce();
    await until(() => gateway.calls.length === 1);
    // The notification arrives meanwhile and finds the order leased by the sweeper.
    // A notification confirmed by a query, so it needs the lease too.
    const notified = engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved', amount: order.amount, currency: order.currency, dedupeKey: 'notify-1', confirm: true });
    await until(() => tries.some((owner) => owner.startsWith('shop-1#')));
    open();

    const report = await run;
    expect(report).toMatchObject({ claimed: 1, settled: 1, errors: 0 });
    // The sweeper's apply went first; the notification then got the lease and found nothing to do.
    const result = await notified;
    expect(result.status).toBe('noop');
    const transitions = (await inner.listEvents(order.id)).filter((e) => e.type === 'transition');
    expect(transitions.map((e) => [e.source, e.toState])).toEqual([['sweeper', 'paid']]);
    expect(rec.count('onPaid')).toBe(1);
    expect(await inner.listDue({ states: ['paid'], updatedBefore: new Date(Date.now() + 60_000), limit: 10 })).toHaveLength(1);
  });
});
