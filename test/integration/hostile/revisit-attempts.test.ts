/**
 * An order number with two attempts at the gateway (a declined one, then an
 * authorisation; a hosted-page retry), the authorisation then voided in the merchant portal with
 * its notification lost. The sandbox refuses a second attempt under one order number, so the
 * declined attempt is made for real under another number and then filed under this one in the
 * sandbox's ledger, oldest first, as the gateway would list them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayPort } from '../../../server/checkout/gateway-port.js';
import { createSweeper } from '../../../server/orders/sweeper.js';
import type { LedgerStore } from '../../../server/sandbox/ledger.js';
import { cardPayment } from '../../reliability/support/orders.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { paidIn } from './support.js';

let shop: Shop;
beforeAll(async () => {
  shop = await startShop({ captureMode: 'manual' });
  shop.sandbox.faults.add({ kind: 'dropNotification' });
});
afterAll(async () => {
  await shop.close();
});

const orderNo = (tag: string): string => `ATT-${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
const hooks = (no: string, hook: string): number => shop.hookCalls.filter((c) => c.hook === hook && c.orderNo === no).length;

describe('revisit of an order number with a declined attempt before its authorisation', () => {
  it('an authorisation voided in the portal: the order becomes cancelled on its own transaction, onCancelled once', async () => {
    const no = orderNo('void');
    // Attempt 1: declined (do-not-honour card), made first.
    const declined = await shop.kit.client.payments.authorise(cardPayment(`${no}-first`, 3_000, '4000000000000002', shop.kit.context.urls.notify()), { timeoutMs: 30_000 });
    expect(declined.outcome).toBe('declined');
    // Attempt 2: authorised (manual capture), the order's payment.
    const order = await paidIn(shop, no, 3_000);
    expect(order.state).toBe('authorized');
    const ledger = shop.sandbox.ledger as unknown as LedgerStore;
    const first = ledger.transaction(declined.transactionId ?? '');
    expect(first).toBeDefined();
    if (first === undefined) return;
    ledger.saveTransaction({ ...first, orderNo: no });
    expect(ledger.accountTransactionsMatching(first.merchantId, first.accountId, [no, 'x'], []).map((t) => t.transactionId)).toEqual([declined.transactionId, order.transactionId]);

    // The portal voids the authorisation; the notification is lost.
    const [v] = await shop.kit.client.batch.cancel([{ transaction_id: order.transactionId ?? '', order_no: no, currency: 'USD', amount: 3_000 }]);
    expect(v?.ok).toBe(true);
    await shop.sandbox.notifier.flush();

    const answer = (await createGatewayPort(shop.kit.client).queryOrders([no])).get(no);
    expect(answer).toMatchObject({ outcome: 'cancelled', transactionId: order.transactionId });

    const sweeper = createSweeper({ engine: shop.kit.engine, store: shop.kit.store, gateway: createGatewayPort(shop.kit.client), logger: shop.kit.context.logger, stuckAfterMs: 1, expireAfterMs: 2 });
    expect((await sweeper.runOnce()).revisits).toMatchObject({ changed: 1, errors: 0 });
    await shop.kit.engine.outbox.runOnce();
    const stored = await shop.kit.store.get(order.id);
    // The gateway holds no money for this order any more: its authorisation was voided.
    expect(stored?.state).toBe('cancelled');
    expect(stored?.transactionId).toBe(order.transactionId);
    expect(hooks(no, 'onCancelled')).toBe(1);
  });
});
