/**
 * The copyable route files of examples/routes against the sandbox over real HTTP: the checkout
 * route, the shop's own result page, the notify mounting, and the staff actions from code.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureOrder, queryOrder, refundOrder } from '../../../examples/routes/admin-actions.js';
import type { Cart } from '../../../examples/routes/checkout-route.js';
import { createRoutesShop } from '../../../examples/routes/server.js';
import type { CheckoutKit } from '../../../server/index.js';
import { formWith, listenFirst, payByCard, startGateway, tempDir, Visitor, type LateServer, type TestGateway } from './support.js';

interface Shop {
  gateway: TestGateway;
  server: LateServer;
  kit: CheckoutKit;
  cart: Cart;
  close(): Promise<void>;
}

let cartCounter = 0;

async function startShop(captureMode: 'auto' | 'manual'): Promise<Shop> {
  const tmp = tempDir('example-routes-');
  const [gateway, server] = await Promise.all([startGateway(captureMode), listenFirst()]);
  const cart: Cart = {
    id: `c${String(process.pid)}x${String(++cartCounter)}`,
    revision: 1,
    currency: 'EUR',
    lines: [{ sku: 'MUG-1', name: 'Stoneware mug', unitPrice: 1450, quantity: 2 }, { sku: 'TEA-1', name: 'Sencha', unitPrice: 890, quantity: 1 }],
  };
  const { app, kit } = createRoutesShop({
    shopUrl: server.url,
    gateway: gateway.account,
    tokenSecret: 'routes-example-token-secret-0123456789abc',
    database: join(tmp.dir, 'orders.sqlite'),
    cart: () => ({ ...cart }),
  });
  server.serve(app);
  return {
    gateway,
    server,
    kit,
    cart,
    async close() {
      await server.close();
      await kit.close();
      await kit.store.close?.();
      await gateway.close();
      tmp.remove();
    },
  };
}

/** Checks out the shop's cart and returns the pay URL. */
async function checkOut(shop: Shop, visitor: Visitor): Promise<string> {
  const reply = await visitor.post(`${shop.server.url}/checkout`, { email: 'ada@example.com' }, false);
  expect(reply.status).toBe(303);
  return reply.location ?? '';
}

describe('examples/routes', () => {
  let auto: Shop;
  let manual: Shop;

  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    auto = await startShop('auto');
    cleanups.push(() => auto.close());
    manual = await startShop('manual');
    cleanups.push(() => manual.close());
  });

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('checkout route: prices the cart on the server, redirects to the pay page, one order per cart revision', async () => {
    const visitor = new Visitor();
    const payUrl = await checkOut(auto, visitor);
    expect(payUrl.startsWith(`${auto.server.url}/checkout/pay/`)).toBe(true);
    const order = await auto.kit.store.getByOrderNo(`CART-${auto.cart.id}-1`);
    expect(order).toMatchObject({ state: 'created', amount: 3790, currency: 'EUR' });
    expect(order?.data.items).toEqual([
      { name: 'Stoneware mug', sku: 'MUG-1', unitPrice: 1450, quantity: 2 },
      { name: 'Sencha', sku: 'TEA-1', unitPrice: 890, quantity: 1 },
    ]);

    // A double click finds the same order; a bad e-mail changes nothing.
    await checkOut(auto, visitor);
    const bad = await visitor.post(`${auto.server.url}/checkout`, { email: 'not-an-address' }, false);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('email');
    expect(await auto.kit.store.list({ limit: 10 })).toHaveLength(1);
  });

  it('result route: the shop\'s own page for the kit\'s signed result link; forged links get 404', async () => {
    const visitor = new Visitor();
    auto.cart.revision = 2;
    const paid = await payByCard(visitor, await checkOut(auto, visitor));
    expect(paid.url).toContain('/checkout/result/');
    expect(paid.text).toContain('Thank you! Your order is paid.');
    expect(paid.text).not.toContain('http-equiv="refresh"');

    const forged = await visitor.get(paid.url.replace(/\/result\/.*$/, '/result/bm90LWEtdG9rZW4.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(forged.status).toBe(404);

    // An order still waiting for the gateway keeps refreshing.
    auto.cart.revision = 3;
    const open = await auto.kit.createPayment({
      orderNo: `CART-${auto.cart.id}-3`, amount: 890, currency: 'EUR',
      items: [{ name: 'Sencha', sku: 'TEA-1', unitPrice: 890, quantity: 1 }], shopper: { id: 'x', email: 'x@example.com' },
    });
    const waiting = await visitor.get(auto.kit.context.urls.result(open.order.id));
    expect(waiting.text).toContain('Confirming your payment');
    expect(waiting.text).toContain('http-equiv="refresh"');
  });

  it('notify mounting: the gateway\'s notification alone settles an APM payment the shopper never came back from', async () => {
    const visitor = new Visitor();
    manual.cart.revision = 10;
    const payUrl = await checkOut(manual, visitor);
    const page = await visitor.get(payUrl);
    const form = formWith(page.text, 'name="method" value="apm"');
    const toIssuer = await visitor.post(form.action, { ...form.fields, payment_method: 'IDEAL' }, false);
    expect(toIssuer.status).toBe(303);
    const issuer = await visitor.get(toIssuer.location ?? '');
    const decision = formWith(issuer.text, 'decision');
    // The shopper approves at the bank and closes the tab: the return is never followed.
    await visitor.post(decision.action, { decision: 'approve' }, false);
    await manual.gateway.sandbox.notifier.flush();

    const order = await manual.kit.store.getByOrderNo(`CART-${manual.cart.id}-10`);
    expect(order?.state).toBe('paid');
    const events = await manual.kit.store.listEvents(order!.id);
    expect(events.find((e) => e.toState === 'paid')?.source).toBe('notify');
    expect(events.some((e) => e.source === 'return')).toBe(false);
  });

  it('admin actions from code: capture, partial refund, query, full refund; a refused action sends nothing', async () => {
    const visitor = new Visitor();
    manual.cart.revision = 20;
    await payByCard(visitor, await checkOut(manual, visitor));
    const orderNo = `CART-${manual.cart.id}-20`;
    expect((await manual.kit.store.getByOrderNo(orderNo))?.state).toBe('authorized');

    const captured = await captureOrder(manual.kit, orderNo, 'ops-script');
    expect(captured).toMatchObject({ state: 'paid', capturedAmount: 3790 });
    expect(manual.gateway.sandbox.ledger.transaction(orderNo)).toMatchObject({ capturedAmount: 3790, paymentStatus: '3000' });

    const partly = await refundOrder(manual.kit, orderNo, 500, 'scratched mug', 'ops-script');
    expect(partly).toMatchObject({ state: 'partially_refunded', refundedAmount: 500 });
    await manual.gateway.sandbox.notifier.flush();
    // The gateway's notifications about the same capture and refund change nothing more.
    expect(await manual.kit.store.getByOrderNo(orderNo)).toMatchObject({ state: 'partially_refunded', refundedAmount: 500 });

    const queried = await queryOrder(manual.kit, orderNo, 'ops-script');
    expect(queried.gateway).toMatchObject({ orderNo, amount: 3790, paymentStatus: '3100' });
    expect(queried.order?.state).toBe('partially_refunded');

    const full = await refundOrder(manual.kit, orderNo, undefined, undefined, 'ops-script');
    expect(full).toMatchObject({ state: 'refunded', refundedAmount: 3790 });
    const events = await manual.kit.store.listEvents(full.id);
    expect(events.filter((e) => e.type === 'transition').map((e) => e.toState)).toEqual(['pending', 'authorized', 'paid', 'partially_refunded', 'refunded']);
    // Who did what is on record, whichever of the call and the gateway's notification moved the order first.
    const actions = events.filter((e) => e.type === 'api_action' && e.actor === 'ops-script').map((e) => e.data.action);
    expect(actions).toEqual(['capture', 'refund', 'refund']);

    const before = manual.gateway.sandbox.ledger.transaction(orderNo);
    await expect(captureOrder(manual.kit, orderNo)).rejects.toMatchObject({ code: 'ERR_ORDER_STATE' });
    await expect(refundOrder(manual.kit, orderNo, 1)).rejects.toMatchObject({ code: 'ERR_ORDER_STATE' });
    expect(manual.gateway.sandbox.ledger.transaction(orderNo)).toEqual(before);
  });
});
