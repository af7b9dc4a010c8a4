/**
 * Hostile: the gateway transport (undici, the kit's default) under a misbehaving gateway while a
 * shopper pays on the pay page: the answer arrives after the client's deadline (the gateway still
 * charges), the connection is reset after the charge, the answer is garbage, the gateway holds it
 * forever, or answers 500 before charging. Each time the shopper then posts the pay form again.
 * The notifications are lost, so only the sweeper's query can settle the order.
 * Invariant: no card number in a log line or page; never a second authorise for one order; after the sweeper the shop's state is the
 * ledger's (paid when charged, not paid when not), and `onPaid` runs once for a charge.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Browser, payForm } from '../../helpers/browser.js';
import { CARD, cardFields } from '../checkout/journeys-harness.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';

let shop: Shop;
beforeAll(async () => {
  shop = await startShop({
    notifyTimeScale: 0.00001,
    timeoutMs: 1000,
    // No fetch of the harness's own: the kit sends through its default undici transport.
    kit: { fetch: undefined },
  });
});
afterAll(async () => {
  await shop.close();
});

const FAULTS = [
  { name: 'slow past the deadline', rule: { kind: 'latency', latencyMs: 2_000 } },
  { name: 'reset after charging', rule: { kind: 'reset' } },
  { name: 'garbage answer', rule: { kind: 'malformed' } },
  { name: 'answer held forever', rule: { kind: 'timeout' } },
  { name: '500 before charging', rule: { kind: 'http500' } },
] as const;

describe('the pay page when the gateway misbehaves (undici transport)', () => {
  it('every fault: one authorise at most, the shopper\'s second post sends nothing, the sweeper settles to the ledger', async () => {
    const runs = await Promise.all(FAULTS.map(async (fault, i) => {
      const orderNo = `TRF-${String(i)}-${Date.now().toString(36)}`;
      const { orderId, payUrl } = await shop.createOrder(orderNo, 2_000 + i);
      shop.sandbox.faults.add({ ...fault.rule, operation: 'authorise', orderNo, times: 1 });
      shop.sandbox.faults.add({ kind: 'dropNotification', orderNo });
      const browser = new Browser();
      const page = await browser.get(payUrl);
      const form = payForm(page, 'card');
      const first = await browser.submit(page, form, cardFields(CARD.approve));
      // The shopper goes back and posts the same form again.
      const second = await browser.submit(page, form, cardFields(CARD.approve));
      return { fault: fault.name, orderNo, orderId, statuses: [first.status, second.status], pages: [first.html, second.html] };
    }));
    // The slow gateway charges only after its delay, past the kit's deadline: wait for that charge.
    const slow = runs.find((run) => run.fault === 'slow past the deadline')!;
    await vi.waitFor(() => {
      expect(shop.sandbox.ledger.transactions().some((t) => t.orderNo === slow.orderNo)).toBe(true);
    }, { timeout: 20_000, interval: 50 });
    await shop.sandbox.notifier.flush();
    await shop.kit.sweeper.runOnce();
    await shop.kit.sweeper.runOnce();

    // A garbage or cut answer is logged as a failure, never with the card it was about.
    expect(shop.logs.filter((l) => l.includes(CARD.approve))).toEqual([]);
    for (const run of runs) {
      for (const html of run.pages) expect(html, run.fault).not.toContain(CARD.approve);
      const charged = shop.sandbox.ledger.transactions().filter((t) => t.orderNo === run.orderNo);
      expect(charged.length, run.fault).toBeLessThanOrEqual(1);
      expect(run.statuses.every((s) => s < 500 || s === 502 || s === 503), `${run.fault}: ${run.statuses.join(',')}`).toBe(true);
      const order = (await shop.kit.store.get(run.orderId))!;
      const tx = charged[0];
      // The faults after the charge did charge; the 500 came before it.
      expect(tx !== undefined, run.fault).toBe(!run.fault.startsWith('500'));
      if (tx !== undefined && tx.capturedAmount > 0) {
        expect(order.state, run.fault).toBe('paid');
        expect(order.transactionId, run.fault).toBe(tx.transactionId);
        expect(shop.hookCalls.filter((c) => c.hook === 'onPaid' && c.orderNo === run.orderNo), run.fault).toHaveLength(1);
      } else {
        expect(['paid', 'authorized', 'partially_refunded', 'refunded'], run.fault).not.toContain(order.state);
        expect(shop.hookCalls.filter((c) => c.hook === 'onPaid' && c.orderNo === run.orderNo), run.fault).toHaveLength(0);
      }
    }
  });
});
