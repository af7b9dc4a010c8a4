/**
 * The revisit round while the gateway's refund search fails (sandbox http500 on retrievalRefund):
 * a refunded or charged-back answer without its refunds concludes nothing (no move past refunds
 * nobody records, no staff alert for a difference that does not exist); the next pass records it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayPort } from '../../../server/checkout/gateway-port.js';
import { createSweeper } from '../../../server/orders/sweeper.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { paidIn, refundBehindTheKit } from './support.js';

let shop: Shop;
beforeAll(async () => {
  shop = await startShop();
  shop.sandbox.faults.add({ kind: 'dropNotification' });
});
afterAll(async () => {
  await shop.close();
});

const orderNo = (tag: string): string => `RSF-${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
const hooks = (no: string, hook: string): number => shop.hookCalls.filter((c) => c.hook === hook && c.orderNo === no).length;

function sweeperAt() {
  let shift = 0;
  const sweeper = createSweeper({
    engine: shop.kit.engine, store: shop.kit.store, gateway: createGatewayPort(shop.kit.client), logger: shop.kit.context.logger,
    stuckAfterMs: 1, expireAfterMs: 2, revisitEveryMs: 1_000, now: () => new Date(Date.now() + shift),
  });
  return { sweeper, later: (ms: number) => { shift += ms; } };
}

function searchFails(): void {
  shop.sandbox.faults.add({ kind: 'http500', operation: 'retrievalRefund' });
}
function searchWorks(): void {
  shop.sandbox.faults.clear();
  shop.sandbox.faults.add({ kind: 'dropNotification' });
}

describe('revisit while the refund search fails', () => {
  it('a portal refund followed by a chargeback: the refund ends in the ledger with the chargeback, told to onRefunded once', async () => {
    const order = await paidIn(shop, orderNo('cbk'), 10_000);
    const refund = await refundBehindTheKit(shop, order, 3_000);
    expect(refund.ok).toBe(true);
    const raised = await fetch(`${shop.gateway.baseUrl}/_sandbox/transactions/${order.transactionId ?? ''}/chargeback`, { method: 'POST' });
    expect(raised.status).toBe(200);
    await shop.sandbox.notifier.flush();
    const gatewayRefunded = shop.sandbox.ledger.refunds().filter((r) => r.orderNo === order.orderNo && r.refundStatus === '1').reduce((s, r) => s + r.refundAmount, 0);
    expect(gatewayRefunded).toBe(3_000);

    const { sweeper, later } = sweeperAt();
    searchFails();
    const first = await sweeper.runOnce();
    searchWorks();
    // Nothing concluded while the search fails: the order waits as it was.
    expect(first.revisits).toMatchObject({ changed: 0 });
    expect(first.revisits?.errors).toBeGreaterThan(0);
    expect(await shop.kit.store.get(order.id)).toMatchObject({ state: 'paid', refundedAmount: 0 });
    // Later passes, with the search working again.
    for (let i = 0; i < 3; i++) {
      later(2_000);
      await sweeper.runOnce();
    }
    await shop.kit.engine.outbox.runOnce();
    const stored = await shop.kit.store.get(order.id);
    const rows = await shop.kit.store.listRefunds(order.id);
    expect(stored?.state).toBe('chargeback');
    // The invariant: the shop's record of money equals the gateway's.
    expect(stored?.refundedAmount).toBe(gatewayRefunded);
    expect(rows).toEqual([expect.objectContaining({ referenceId: refund.referenceId, amount: 3_000, status: 'succeeded' })]);
    expect(hooks(order.orderNo, 'onRefunded')).toBe(1);
  });

  it('a portal refund: a failed refund search concludes nothing (no attention, no hook); the next pass records it', async () => {
    const full = await paidIn(shop, orderNo('full'), 5_000);
    const part = await paidIn(shop, orderNo('part'), 5_000);
    expect((await refundBehindTheKit(shop, full, 5_000)).ok).toBe(true);
    expect((await refundBehindTheKit(shop, part, 1_000)).ok).toBe(true);
    await shop.sandbox.notifier.flush();

    const { sweeper, later } = sweeperAt();
    searchFails();
    const first = await sweeper.runOnce();
    searchWorks();
    expect(first.revisits).toMatchObject({ changed: 0 });
    await shop.kit.engine.outbox.runOnce();
    const afterFailure = await Promise.all([full, part].map(async (o) => {
      const s = await shop.kit.store.get(o.id);
      return { orderNo: o.orderNo, state: s?.state, refundedAmount: s?.refundedAmount, attention: s?.attention, onAttention: hooks(o.orderNo, 'onAttention') };
    }));

    later(2_000);
    for (let i = 0; i < 2; i++) {
      await sweeper.runOnce();
      later(2_000);
    }
    await shop.kit.engine.outbox.runOnce();
    expect(await shop.kit.store.get(full.id)).toMatchObject({ state: 'refunded', refundedAmount: 5_000 });
    expect(await shop.kit.store.get(part.id)).toMatchObject({ state: 'partially_refunded', refundedAmount: 1_000 });
    // What the docs promise: "A failed query concludes nothing". A failed refund search should not
    // flag the order for staff with a ledger difference that does not exist.
    for (const o of afterFailure) {
      expect(o.attention ?? null).toBeNull();
      expect(o.onAttention).toBe(0);
    }
  });
});
