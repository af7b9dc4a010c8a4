/**
 * Hostile: a capture whose answer and notification were both lost, on an authorisation older than
 * one sweeper page of authorised orders. The capture round pages through every authorised order,
 * round after round, so the old claim is settled to the gateway's captured amount however many
 * newer authorisations sit in front of it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { paidIn } from './support.js';

let shop: Shop;
beforeAll(async () => {
  shop = await startShop({
    captureMode: 'manual', notifyTimeScale: 0.00001, timeoutMs: 1000,
    kit: { sweeper: { enabled: false, stuckAfterMs: 1, expireAfterMs: 2, subscriptionScanLimit: 2 } },
  });
});
afterAll(async () => {
  await shop.close();
});

it('settles a lost capture behind more newer authorisations than one round looks at', async () => {
  const run = Date.now().toString(36);
  // Every notification of the old order is lost, the authorisation's too (it would otherwise be
  // confirmed by a query that already says captured): the sweeper is the only road left.
  shop.sandbox.faults.add({ kind: 'dropNotification', orderNo: `CPAGE-OLD-${run}` });
  const old = await paidIn(shop, `CPAGE-OLD-${run}`, 10_000);
  shop.sandbox.faults.add({ kind: 'timeout', operation: 'capture', orderNo: old.orderNo, times: 1 });
  expect((await shop.kit.orders.capture(old.id, { amount: 6_000 })).status).toBe('unknown');
  // Four newer authorisations, no capture asked: two pages of two in front of the old one.
  for (let i = 0; i < 4; i++) expect((await paidIn(shop, `CPAGE-NEW-${run}-${String(i)}`, 2_000)).state).toBe('authorized');
  await sleep(20);

  const checked: number[] = [];
  for (let round = 0; round < 3 && (await shop.kit.store.get(old.id))?.state === 'authorized'; round++) {
    checked.push((await shop.kit.sweeper.runOnce()).captures?.checked ?? 0);
  }
  // The third page holds the old order: two rounds see no claim, the third settles it.
  expect(checked).toEqual([0, 0, 1]);
  const settled = (await shop.kit.store.get(old.id))!;
  expect(shop.sandbox.ledger.transaction(old.orderNo)!.capturedAmount).toBe(6_000);
  expect(settled.state).toBe('paid');
  expect(settled.capturedAmount).toBe(6_000);
});
