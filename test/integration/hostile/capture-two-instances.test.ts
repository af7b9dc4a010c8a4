/**
 * Hostile: two shop instances on one PostgreSQL database capture the same authorised order at
 * once, each with five different partial amounts, while the capture notification is posted to
 * both. The capture claim written on the order is what keeps a second capture from being sent:
 * it must hold across processes (the store's compare-and-set), not only within one.
 * Invariant: one capture request reaches the gateway; both instances' store says the amount the
 * sandbox captured; `onPaid` once per eventId. Needs TEST_DATABASE_URL (skipped without it).
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckoutKit } from '../../../server/kit.js';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import { recordingHooks, type HookCall } from '../../reliability/support/shop-app.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { TEST_DATABASE_URL, dropSchema, serverPool, uniqueSchema } from '../stores/pg-target.js';
import { held, paidIn, postForm, secondInstance } from './support.js';

const calls: HookCall[] = [];

describe.skipIf(!TEST_DATABASE_URL)('partial captures from two instances on PostgreSQL', () => {
  const schema = uniqueSchema('cap2');
  let pools: pg.Pool[] = [];
  let shop: Shop;
  let second: CheckoutKit;
  let secondShop: Awaited<ReturnType<typeof secondInstance>>;

  beforeAll(async () => {
    pools = [serverPool(10), serverPool(10)];
    const [storeA, storeB] = await Promise.all(pools.map((pool) => createPostgresStore({ pool, schema })));
    shop = await startShop({ store: storeA!, captureMode: 'manual', notifyTimeScale: 0.00001, kit: { hooks: recordingHooks((c) => calls.push(c)) } });
    secondShop = await secondInstance(shop, storeB!, recordingHooks((c) => calls.push(c)));
    second = secondShop.kit;
  });

  afterAll(async () => {
    await secondShop.close();
    await shop.close();
    if (pools[0]) await dropSchema(pools[0], schema);
    for (const pool of pools) await pool.end();
  });

  it('ten partial captures from two instances at once: one sent, both stores say what the sandbox captured', async () => {
    const order = await paidIn(shop, `CAP2-${randomUUID().slice(0, 8)}`, 10_000);
    expect(order.state).toBe('authorized');
    shop.sandbox.faults.add({ kind: 'dropNotification', orderNo: order.orderNo });
    let racing = true;
    const poster = (async () => {
      const posted = new Set<string>();
      while (racing) {
        for (const f of held(shop, order.orderNo)) {
          const key = JSON.stringify(f);
          if (posted.has(key)) continue;
          posted.add(key);
          await Promise.all([postForm(shop.kit.context.urls.notify(), f), postForm(second.context.urls.notify(), f)]);
        }
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const kits = [shop.kit, second];
    const results = await Promise.allSettled([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => kits[n % 2]!.orders.capture(order.id, { amount: n * 900 })));
    racing = false;
    await poster;
    const captured = results.filter((r) => r.status === 'fulfilled' && r.value.status === 'captured');
    expect(captured).toHaveLength(1);
    await shop.sandbox.notifier.flush();
    for (const f of held(shop, order.orderNo)) {
      expect([200, 503]).toContain(await postForm(second.context.urls.notify(), f));
    }
    // The sandbox logs each request it serves (this file's only capture requests).
    const sent = shop.logs.filter((l) => l.includes('"msg":"sandbox request"') && l.includes('"operation":"capture"'));
    expect(sent).toHaveLength(1);
    const tx = shop.sandbox.ledger.transaction(order.orderNo)!;
    for (const kit of kits) {
      const now = (await kit.store.get(order.id))!;
      expect(now.state).toBe('paid');
      expect(now.capturedAmount).toBe(tx.capturedAmount);
    }
    expect(new Set(calls.filter((c) => c.hook === 'onPaid' && c.orderNo === order.orderNo).map((c) => c.eventId)).size).toBe(1);
  });
});
