/**
 * Hostile: two shop instances on one PostgreSQL database reconcile the same subscription
 * deductions at once. The sandbox's notifications are lost; every one is then posted to both
 * instances several times in shuffled order while both sweepers read `subscription_result`.
 * Invariant: exactly one child order per deduction the sandbox charged, with its amount and
 * outcome; `onRecurringCharge` delivered for one eventId per deduction, whichever instance ran it.
 * Needs TEST_DATABASE_URL (skipped without it, as the store's own multi-instance tests are).
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckoutKit } from '../../../server/kit.js';
import type { RecurringCharge } from '../../../server/orders/hooks.js';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import type { Order } from '../../../server/orders/types.js';
import { cardPayment } from '../../reliability/support/orders.js';
import { recordingHooks } from '../../reliability/support/shop-app.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { TEST_DATABASE_URL, dropSchema, serverPool, uniqueSchema } from '../stores/pg-target.js';
import { APPROVE, held, postForm, secondInstance } from './support.js';

const charges: { instance: string; deduction: string; status: string; eventId: string }[] = [];
const hooksOf = (instance: string) => ({
  ...recordingHooks(() => undefined),
  onRecurringCharge: (charge: RecurringCharge) => {
    charges.push({ instance, deduction: charge.deduction.orderNo, status: charge.status, eventId: charge.eventId });
  },
});

describe.skipIf(!TEST_DATABASE_URL)('subscription deductions reconciled by two instances on PostgreSQL', () => {
  const schema = uniqueSchema('subs2');
  let pools: pg.Pool[] = [];
  let shop: Shop;
  let second: CheckoutKit;
  let secondShop: Awaited<ReturnType<typeof secondInstance>>;
  let secondNotify = '';

  beforeAll(async () => {
    pools = [serverPool(10), serverPool(10)];
    const [storeA, storeB] = await Promise.all(pools.map((pool) => createPostgresStore({ pool, schema })));
    shop = await startShop({ store: storeA!, notifyTimeScale: 0.00001, kit: { hooks: hooksOf('a') } });
    secondShop = await secondInstance(shop, storeB!, hooksOf('b'));
    second = secondShop.kit;
    secondNotify = second.context.urls.notify();
  });

  afterAll(async () => {
    await secondShop.close();
    await shop.close();
    if (pools[0]) await dropSchema(pools[0], schema);
    for (const pool of pools) await pool.end();
  });

  async function subscribed(orderNo: string): Promise<Order> {
    const { orderId } = await shop.createOrder(orderNo, 1_200);
    const body = {
      ...cardPayment(orderNo, 1_200, APPROVE, shop.kit.context.urls.notify()),
      subscription: { contract_name: 'Tea club', contract_amount: 950, interval: 'week', interval_count: '1' },
    };
    const paid = await shop.kit.client.payments.authorise(body, { timeoutMs: 30_000 });
    await shop.kit.engine.apply({ orderId, source: 'pay', outcome: paid.outcome, transactionId: paid.transactionId, amount: paid.amount, currency: paid.currency });
    await shop.kit.engine.confirm(orderId, 'admin', 'staff');
    return (await shop.kit.store.get(orderId))!;
  }

  it('four deductions (one declined): one child each, one eventId each, amounts the sandbox\'s', async () => {
    const parent = await subscribed(`SUB2-${randomUUID().slice(0, 8)}`);
    expect(parent.data.recurringId).toMatch(/^RC/);
    shop.sandbox.faults.add({ kind: 'dropNotification', orderNo: parent.orderNo });
    shop.sandbox.clock.advance({ days: 8 });
    shop.sandbox.subscriptions.failNext(String(parent.data.recurringId));
    shop.sandbox.clock.advance({ days: 7 });
    shop.sandbox.clock.advance({ days: 14 });
    await shop.sandbox.notifier.flush();
    const atGateway = shop.sandbox.ledger.transactions().filter((t) => t.orderNo === parent.orderNo && t.deductionOf !== undefined);
    expect(atGateway).toHaveLength(4);
    const notes = held(shop, parent.orderNo).filter((f) => f.transaction_id !== parent.transactionId);
    const posts = [...notes, ...notes, ...notes].flatMap((f) => [() => postForm(shop.kit.context.urls.notify(), f), () => postForm(secondNotify, f)]);
    posts.sort(() => Math.random() - 0.5);
    const statuses = await Promise.all([
      ...posts.map((p) => p()),
      shop.kit.sweeper.runOnce().then(() => 200),
      second.sweeper.runOnce().then(() => 200),
      second.sweeper.runOnce().then(() => 200),
    ]);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    for (const f of notes) expect(await postForm(secondNotify, f)).toBe(200);
    await shop.kit.engine.outbox.deliver(parent.id).catch(() => undefined);

    const children = (await shop.kit.store.listChildren?.(parent.id)) ?? [];
    expect(children.map((c) => c.transactionId).sort()).toEqual(atGateway.map((t) => t.transactionId).sort());
    for (const tx of atGateway) {
      const child = children.find((c) => c.transactionId === tx.transactionId)!;
      expect(child.amount).toBe(tx.amount);
      expect(child.state).toBe(tx.capturedAmount > 0 ? 'paid' : 'declined');
      const owed = new Set(charges.filter((c) => c.deduction === child.orderNo).map((c) => c.eventId));
      expect(owed.size, child.orderNo).toBe(1);
    }
  });
});
