/**
 * Hostile: two kits on one PostgreSQL database (and on one SQLite file), one order, and everything that can touch its
 * refunds at once — staff refunds posted to kit A's admin (answers held back at random), the
 * gateway's refund notifications posted to both kits several times each, kit B's sweeper running
 * its refund round with no grace at all (it fails pending rows whose answer is still on its way),
 * and query sync on both kits. At the end the shop's money must be the sandbox's, and every
 * onRefunded hook call delivered once per event id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayPort } from '../../../server/checkout/gateway-port.js';
import { createCheckoutKit, type CheckoutKit } from '../../../server/kit.js';
import { createSweeper } from '../../../server/orders/sweeper.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import { CardScanner, rememberCard } from '../../reliability/support/card-scan.js';
import { createRng } from '../../reliability/support/rng.js';
import { paidOrder, refundProblems, slowRefundAnswers, Staff } from '../../reliability/support/refund-race.js';
import { ACCOUNT_ID, MERCHANT_ID, startShop, type HookCall, type Shop } from '../../reliability/support/shop.js';
import { recordingHooks } from '../../reliability/support/shop-app.js';
import { TEST_DATABASE_URL, dropSchema, serverPool, uniqueSchema } from '../stores/pg-target.js';
import { held } from './support.js';

for (const backend of ['postgres', 'sqlite'] as const) describe.skipIf(backend === 'postgres' && !TEST_DATABASE_URL)(`refund storm on two kits sharing ${backend}`, () => {
  const schema = uniqueSchema('storm');
  const dir = mkdtempSync(join(tmpdir(), 'hostile-storm-'));
  const sqlitePath = join(dir, 'orders.sqlite');
  let pools: pg.Pool[] = [];
  let shop: Shop;
  let kitB: CheckoutKit;
  let serverB: Server;
  let urlB: string;
  const hooksB: HookCall[] = [];

  beforeAll(async () => {
    let storeA: OrderStore;
    let storeB: OrderStore;
    if (backend === 'postgres') {
      pools = [serverPool(8), serverPool(8)];
      storeA = await createPostgresStore({ pool: pools[0]!, schema });
      storeB = await createPostgresStore({ pool: pools[1]!, schema });
    } else {
      storeA = createSqliteStore({ path: sqlitePath, busyTimeoutMs: 30_000 });
      storeB = createSqliteStore({ path: sqlitePath, busyTimeoutMs: 30_000 });
    }
    shop = await startShop({ admin: true, store: storeA, notifyTimeScale: 0.00001, kit: { fetch: slowRefundAnswers(createRng(9), 40) } });
    shop.sandbox.faults.add({ kind: 'dropNotification' });
    const app = express();
    serverB = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => { resolve(s); });
    });
    urlB = `http://127.0.0.1:${String((serverB.address() as AddressInfo).port)}`;
    kitB = createCheckoutKit({
      store: storeB,
      gateway: { baseUrl: shop.gateway.baseUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: shop.signKey },
      publicUrl: `${urlB}/checkout`,
      tokenSecret: shop.tokenSecret,
      hooks: recordingHooks((c) => hooksB.push(c)),
      sweeper: { enabled: false },
    });
    app.use('/checkout', kitB.router);
  });

  afterAll(async () => {
    await (kitB as CheckoutKit | undefined)?.close();
    await new Promise<void>((resolve) => {
      serverB.close(() => { resolve(); });
      serverB.closeAllConnections();
    });
    await shop.close();
    if (backend === 'postgres') await dropSchema(pools[0]!, schema);
    await Promise.all(pools.map((p) => p.end()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('staff refunds, notifications to both kits, the sweeper\'s refund round and query sync at once', async () => {
    rememberCard('4242424242424242');
    const rng = createRng(2026);
    const order = await paidOrder(shop, `STORM-${Date.now().toString(36)}`, 10_000);
    const staff = new Staff(shop, 'storm');
    await staff.get(`/orders/${order.id}`);
    const sweeper = createSweeper({
      engine: kitB.engine, store: kitB.store, gateway: createGatewayPort(kitB.client),
      stuckAfterMs: 60_000, expireAfterMs: 120_000, refundSettleAfterMs: 1, refundFailAfterMs: 1,
    });
    const notifyUrls = [shop.kit.context.urls.notify(), `${urlB}/checkout/notify`];
    const statuses: number[] = [];
    const post = async (fields: Record<string, string>): Promise<void> => {
      const res = await fetch(notifyUrls[rng.int(2)]!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
      await res.text();
      statuses.push(res.status);
    };
    let done = false;
    const background = [
      (async () => {
        while (!done) {
          const refunds = held(shop, order.orderNo).filter((f) => f.refund_reference_id !== undefined);
          await Promise.all(rng.shuffle([...refunds, ...refunds]).map(post));
          await sleep(3);
        }
      })(),
      (async () => {
        while (!done) {
          await sweeper.runOnce();
          await sleep(2);
        }
      })(),
      (async () => {
        while (!done) {
          await Promise.all([kitB.engine.confirm(order.id, 'admin', 'b'), shop.kit.engine.confirm(order.id, 'admin', 'a')]);
          await sleep(4);
        }
      })(),
    ];
    try {
      await Promise.all(Array.from({ length: 8 }, () => staff.post(`/orders/${order.id}/refund`, { refund_amount: '15.00' })));
    } finally {
      done = true;
      await Promise.all(background);
    }
    await shop.sandbox.notifier.flush();
    // During the storm a busy order may answer 503 (the gateway retries it); afterwards, never.
    statuses.length = 0;
    for (const f of held(shop, order.orderNo).filter((x) => x.refund_reference_id !== undefined)) await post(f);
    await sweeper.runOnce();
    await shop.kit.engine.confirm(order.id, 'admin', 'a');
    await Promise.all([shop.kit.engine.outbox.runOnce(), kitB.engine.outbox.runOnce()]);

    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(shop.sandbox.ledger.refunds().filter((r) => r.orderNo === order.orderNo).length).toBeGreaterThanOrEqual(2);
    expect(await refundProblems(shop, order.orderNo)).toEqual([]);
    const calls = [...shop.hookCalls, ...hooksB].filter((c) => c.orderNo === order.orderNo && c.hook === 'onRefunded');
    const ids = calls.map((c) => c.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    const moves = (await shop.kit.store.listEvents(order.id)).filter((e) => e.type === 'transition' && (e.toState === 'partially_refunded' || e.toState === 'refunded'));
    expect(calls).toHaveLength(moves.length);

    // No card data in either database or any log line.
    const scanner = new CardScanner();
    if (backend === 'postgres') await scanner.postgres(pools[0]!, schema);
    else scanner.sqliteFile(sqlitePath);
    shop.scan(scanner);
    expect(scanner.findings).toEqual([]);
    expect(scanner.scanned).toBeGreaterThan(0);
  });
});
