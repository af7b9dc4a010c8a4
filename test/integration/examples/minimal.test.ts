/**
 * examples/minimal/server.ts against the sandbox over real HTTP: a shopper buys, pays by card
 * on the kit's pay page and sees the result; the shop's onPaid ran exactly once.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMinimalShop } from '../../../examples/minimal/server.js';
import { listenFirst, payByCard, startGateway, tempDir, Visitor, type LateServer, type TestGateway } from './support.js';

describe('examples/minimal', () => {
  let gateway: TestGateway;
  let server: LateServer;
  let shop: ReturnType<typeof createMinimalShop>;
  const tmp = tempDir('example-minimal-');

  const cleanups: (() => Promise<void> | void)[] = [() => { tmp.remove(); }];

  beforeAll(async () => {
    gateway = await startGateway();
    cleanups.push(() => gateway.close());
    server = await listenFirst();
    cleanups.push(() => server.close());
    shop = createMinimalShop({
      shopUrl: server.url,
      gateway: gateway.account,
      tokenSecret: 'minimal-example-token-secret-0123456789',
      database: join(tmp.dir, 'orders.sqlite'),
    });
    cleanups.push(async () => {
      await shop.kit.close();
      await shop.kit.store.close?.();
    });
    server.serve(shop.app);
  });

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('takes a card payment end to end and calls onPaid once', async () => {
    const visitor = new Visitor();
    const start = await visitor.get(`${server.url}/`);
    expect(start.text).toContain('action="/buy"');

    const bought = await visitor.post(`${server.url}/buy`, {}, false);
    expect(bought.status).toBe(303);
    const payUrl = bought.location ?? '';
    expect(payUrl.startsWith(`${server.url}/checkout/pay/`)).toBe(true);

    const result = await payByCard(visitor, payUrl);
    expect(result.url).toContain('/checkout/result/');
    expect(result.text).toContain('Payment received');

    const [order] = await shop.kit.store.list({ limit: 1 });
    expect(order).toMatchObject({ state: 'paid', amount: 1250, currency: 'EUR', maskedCard: '424242******4242' });
    expect([...shop.paidOrders]).toEqual([order!.orderNo]);
    // The sandbox's notification for the same payment changes nothing and calls no hook again.
    await gateway.sandbox.notifier.flush();
    expect(shop.paidOrders.size).toBe(1);
    expect(gateway.sandbox.ledger.transaction(order!.orderNo)).toMatchObject({ amount: 1250, paymentStatus: '3000', card: '424242******4242' });
  });
});
