/**
 * The sweeper's revisit round against the sandbox over real HTTP: money moved at the gateway
 * without the kit (a refund, capture or cancel made in the merchant portal, a chargeback) whose
 * notification never reached the shop is recorded by the next pass, once; a pass is paged and
 * bounded; orders it must not touch are not asked about.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayPort } from '../../../server/checkout/gateway-port.js';
import { createSweeper, type SweeperOptions } from '../../../server/orders/sweeper.js';
import type { GatewayPort } from '../../../server/orders/engine-types.js';
import type { Order } from '../../../server/orders/types.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { held, paidIn, postNotify, refundBehindTheKit } from '../hostile/support.js';

let shop: Shop;
let manual: Shop;
beforeAll(async () => {
  [shop, manual] = await Promise.all([startShop(), startShop({ captureMode: 'manual' })]);
  // Every notification is lost: the gateway keeps it, the shop never hears of it.
  for (const s of [shop, manual]) s.sandbox.faults.add({ kind: 'dropNotification' });
});
afterAll(async () => {
  await Promise.all([shop.close(), manual.close()]);
});

const orderNo = (tag: string): string => `REV-${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

/** A sweeper over the shop's kit whose business clock the test moves, and every order number it asks about. */
function sweeperOf(s: Shop, options: Partial<SweeperOptions> = {}) {
  let shift = 0;
  const asked: string[][] = [];
  const port = createGatewayPort(s.kit.client);
  const gateway: GatewayPort = {
    ...port,
    queryOrders: (orderNos) => {
      asked.push([...orderNos]);
      return port.queryOrders(orderNos);
    },
  };
  const sweeper = createSweeper({
    engine: s.kit.engine, store: s.kit.store, gateway, logger: s.kit.context.logger, stuckAfterMs: 1, expireAfterMs: 2, now: () => new Date(Date.now() + shift), ...options,
  });
  return { sweeper, asked, later: (ms: number) => { shift += ms; } };
}

const hooks = (s: Shop, no: string, hook: string): number => s.hookCalls.filter((c) => c.hook === hook && c.orderNo === no).length;

async function settle(s: Shop): Promise<void> {
  await s.kit.engine.outbox.runOnce();
  await s.sandbox.notifier.flush();
}

describe('sweeper: settled orders the gateway changed without a notification reaching the shop', () => {
  it('records a refund made in the portal once, whether or not its notification turns up later', async () => {
    const order = await paidIn(shop, orderNo('refund'), 10_000);
    const refund = await refundBehindTheKit(shop, order, 2_500);
    expect(refund.ok).toBe(true);
    await settle(shop);
    expect(await shop.kit.store.get(order.id)).toMatchObject({ state: 'paid', refundedAmount: 0 });

    const { sweeper } = sweeperOf(shop);
    const report = await sweeper.runOnce();
    expect(report.revisits).toMatchObject({ changed: 1, errors: 0 });
    expect(await shop.kit.store.get(order.id)).toMatchObject({ state: 'partially_refunded', refundedAmount: 2_500, attention: null });
    expect(await shop.kit.store.listRefunds(order.id)).toEqual([expect.objectContaining({ referenceId: refund.referenceId, amount: 2_500, status: 'succeeded', source: 'sweeper' })]);
    await shop.kit.engine.outbox.runOnce();
    expect(hooks(shop, order.orderNo, 'onRefunded')).toBe(1);

    // The lost notification delivered after all changes nothing: the refund is counted once.
    const events = (await shop.kit.store.listEvents(order.id)).length;
    for (const fields of held(shop, order.orderNo).filter((f) => f.webhooks_type === 'refund')) expect(await postNotify(shop, fields)).toBe(200);
    expect(await shop.kit.store.get(order.id)).toMatchObject({ state: 'partially_refunded', refundedAmount: 2_500 });
    expect(await shop.kit.store.listRefunds(order.id)).toHaveLength(1);
    await shop.kit.engine.outbox.runOnce();
    expect(hooks(shop, order.orderNo, 'onRefunded')).toBe(1);
    expect((await shop.kit.store.listEvents(order.id)).length - events).toBeLessThanOrEqual(1);
  });

  it('a refund of the rest in the portal ends the order refunded; a chargeback raised at the gateway ends another one charged back', async () => {
    const refunded = await paidIn(shop, orderNo('rest'), 4_000);
    const charged = await paidIn(shop, orderNo('chargeback'), 6_000);
    expect((await refundBehindTheKit(shop, refunded, 4_000)).ok).toBe(true);
    const raised = await fetch(`${shop.gateway.baseUrl}/_sandbox/transactions/${charged.transactionId ?? ''}/chargeback`, { method: 'POST' });
    expect(raised.status).toBe(200);
    await settle(shop);

    const { sweeper } = sweeperOf(shop);
    expect((await sweeper.runOnce()).revisits).toMatchObject({ errors: 0 });
    expect(await shop.kit.store.get(refunded.id)).toMatchObject({ state: 'refunded', refundedAmount: 4_000 });
    expect(await shop.kit.store.get(charged.id)).toMatchObject({ state: 'chargeback' });
    await shop.kit.engine.outbox.runOnce();
    expect(hooks(shop, charged.orderNo, 'onChargeback')).toBe(1);
  });

  it('an authorisation captured in the portal becomes paid for the captured amount; one cancelled there becomes cancelled', async () => {
    const captured = await paidIn(manual, orderNo('capture'), 9_000);
    const voided = await paidIn(manual, orderNo('cancel'), 3_000);
    expect([captured.state, voided.state]).toEqual(['authorized', 'authorized']);
    const [c] = await manual.kit.client.batch.capture([{ transaction_id: captured.transactionId ?? '', order_no: captured.orderNo, currency: 'USD', amount: 9_000 }]);
    const [v] = await manual.kit.client.batch.cancel([{ transaction_id: voided.transactionId ?? '', order_no: voided.orderNo, currency: 'USD', amount: 3_000 }]);
    expect([c?.ok, v?.ok]).toEqual([true, true]);
    await settle(manual);

    const { sweeper } = sweeperOf(manual);
    expect((await sweeper.runOnce()).revisits).toMatchObject({ errors: 0 });
    expect(await manual.kit.store.get(captured.id)).toMatchObject({ state: 'paid', capturedAmount: 9_000 });
    expect(await manual.kit.store.get(voided.id)).toMatchObject({ state: 'cancelled' });
    await manual.kit.engine.outbox.runOnce();
    expect(hooks(manual, captured.orderNo, 'onPaid')).toBe(1);
    expect(hooks(manual, voided.orderNo, 'onCancelled')).toBe(1);
  });

  it('pages through the settled orders run after run, each asked about once per pass, and starts the next pass only after revisitEveryMs', async () => {
    const s = await startShop();
    try {
      s.sandbox.faults.add({ kind: 'dropNotification' });
      const orders: Order[] = [];
      for (let i = 0; i < 5; i++) orders.push(await paidIn(s, orderNo(`page${String(i)}`), 1_000 + i));
      const { sweeper, asked, later } = sweeperOf(s, { revisitLimit: 2, batchSize: 100, revisitEveryMs: 60_000 });
      const checked = [];
      for (let run = 0; run < 4; run++) checked.push((await sweeper.runOnce()).revisits?.checked ?? 0);
      // 2 + 2 + 1 ends the pass; the fourth run is inside revisitEveryMs of the pass's start.
      expect(checked).toEqual([2, 2, 1, 0]);
      expect(asked.flat().sort()).toEqual(orders.map((o) => o.orderNo).sort());
      expect(asked.map((a) => a.length)).toEqual([2, 2, 1]);

      // A refund made meanwhile is found by the next pass, once it is due.
      const last = orders[4] as Order;
      expect((await refundBehindTheKit(s, last, 500)).ok).toBe(true);
      later(59_000);
      expect((await sweeper.runOnce()).revisits).toBeUndefined();
      later(2_000);
      const found = [];
      for (let run = 0; run < 3; run++) found.push((await sweeper.runOnce()).revisits?.changed ?? 0);
      expect(found.reduce((a, b) => a + b, 0)).toBe(1);
      expect(await s.kit.store.get(last.id)).toMatchObject({ state: 'partially_refunded', refundedAmount: 500 });
    } finally {
      await s.close();
    }
  });

  it('leaves alone what it must: orders older than revisitWithinMs, just changed, unknown to the gateway; revisitLimit 0 turns it off', async () => {
    const s = await startShop();
    try {
      s.sandbox.faults.add({ kind: 'dropNotification' });
      const order = await paidIn(s, orderNo('window'), 2_000);
      expect((await refundBehindTheKit(s, order, 700)).ok).toBe(true);

      const off = sweeperOf(s, { revisitLimit: 0 });
      expect((await off.sweeper.runOnce()).revisits).toBeUndefined();
      const old = sweeperOf(s, { revisitWithinMs: 60_000 });
      old.later(61_000);
      expect((await old.sweeper.runOnce()).revisits).toBeUndefined();
      const busy = sweeperOf(s, { stuckAfterMs: 600_000, expireAfterMs: 600_001 });
      expect((await busy.sweeper.runOnce()).revisits).toBeUndefined();
      expect([...off.asked, ...old.asked, ...busy.asked]).toEqual([]);
      expect(await s.kit.store.get(order.id)).toMatchObject({ state: 'paid', refundedAmount: 0 });

      // A paid order the gateway has never heard of (another account's, an import) stays paid.
      const { orderId } = await s.createOrder(orderNo('stranger'), 1_500);
      const stranger = await s.kit.engine.apply({ orderId, source: 'api', outcome: 'approved', transactionId: 'T-elsewhere', amount: 1_500, currency: 'USD' });
      expect(stranger.order?.state).toBe('paid');
      const report = await sweeperOf(s).sweeper.runOnce();
      expect(report.revisits).toMatchObject({ checked: 2, changed: 1, unknown: 1, errors: 0 });
      expect(await s.kit.store.get(orderId)).toMatchObject({ state: 'paid', version: stranger.order?.version });
      expect(s.logs.some((l) => l.includes('The gateway does not know orders the shop holds as settled'))).toBe(true);
      expect(await s.kit.store.get(order.id)).toMatchObject({ state: 'partially_refunded', refundedAmount: 700 });
    } finally {
      await s.close();
    }
  });

  it('runs in the kit\'s own sweeper, set through the kit\'s sweeper options', async () => {
    const s = await startShop({ kit: { sweeper: { enabled: false, stuckAfterMs: 1, expireAfterMs: 2, revisitLimit: 100, revisitEveryMs: 5_000 } } });
    try {
      s.sandbox.faults.add({ kind: 'dropNotification' });
      const order = await paidIn(s, orderNo('kit'), 3_000);
      expect((await refundBehindTheKit(s, order, 3_000)).ok).toBe(true);
      expect((await s.kit.sweeper.runOnce()).revisits).toMatchObject({ checked: 1, changed: 1 });
      expect(await s.kit.store.get(order.id)).toMatchObject({ state: 'refunded', refundedAmount: 3_000 });
    } finally {
      await s.close();
    }
  });
});
