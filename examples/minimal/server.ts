/**
 * The smallest complete integration: create the payment on the server, mount the kit's router,
 * react to `onPaid`. Against the local sandbox:
 *
 *   npx acquiring-checkout-kit sandbox     # terminal 1: the gateway on http://127.0.0.1:4000
 *   npx tsx examples/minimal/server.ts     # terminal 2: this shop on http://localhost:3001
 *
 * then open http://localhost:3001 and pay with 4242 4242 4242 4242, any CVV, a future expiry.
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import express from 'express';
import { createAppServer, createCheckoutKit, createSqliteStore, type CheckoutKit } from '../../server/index.js';

export interface MinimalShopConfig {
  /** Where this shop is reachable, e.g. http://localhost:3001. */
  shopUrl: string;
  gateway: { baseUrl: string; merchantId: string; accountId: string; signKey: string };
  /** ≥ 32 random characters; keep it stable so payment links survive a restart. */
  tokenSecret: string;
  /** SQLite file for the orders. */
  database: string;
}

export function createMinimalShop(config: MinimalShopConfig): { app: express.Express; kit: CheckoutKit; paidOrders: Set<string> } {
  // Stands in for the shop's own database of orders to ship.
  const paidOrders = new Set<string>();

  const kit = createCheckoutKit({
    gateway: config.gateway,
    publicUrl: `${config.shopUrl}/checkout`,
    tokenSecret: config.tokenSecret,
    store: createSqliteStore({ path: config.database }),
    hooks: {
      // Owed once when the order becomes paid, whichever way the news arrived; delivered at
      // least once (a crash or a throw is retried with the same info.eventId).
      onPaid: (order) => {
        paidOrders.add(order.orderNo);
      },
    },
  });

  const app = express();
  app.use('/checkout', kit.router); // pay pages, 3-D Secure return, result page, notifications

  app.get('/', (_req, res) => {
    res.type('html').send('<form method="post" action="/buy"><button>Buy a pot of tea for €12.50</button></form>');
  });

  // The amount and the items come from the shop, never from the browser.
  app.post('/buy', async (_req, res) => {
    const { payUrl } = await kit.createPayment({
      orderNo: `TEA-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`,
      amount: 1250, // minor units: €12.50
      currency: 'EUR',
      items: [{ name: 'Pot of tea', sku: 'TEA-POT', unitPrice: 1250, quantity: 1 }],
      shopper: { id: 'guest', email: 'guest@example.com' },
    });
    res.redirect(303, payUrl);
  });

  return { app, kit, paidOrders };
}

// `npx tsx examples/minimal/server.ts`: the sandbox's default account, unless GATEWAY_* say otherwise.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.env.PORT ?? '3001');
  const { app, kit } = createMinimalShop({
    shopUrl: `http://localhost:${String(port)}`,
    gateway: {
      baseUrl: process.env.GATEWAY_BASE_URL ?? 'http://127.0.0.1:4000',
      merchantId: process.env.GATEWAY_MERCHANT_ID ?? '701001',
      accountId: process.env.GATEWAY_ACCOUNT_ID ?? '701001010',
      signKey: process.env.GATEWAY_SIGN_KEY ?? 'sandbox-sign-key-not-secret',
    },
    tokenSecret: process.env.CHECKOUT_TOKEN_SECRET ?? randomBytes(32).toString('base64url'),
    database: process.env.CHECKOUT_DATABASE ?? 'data/minimal.sqlite',
  });
  // app.listen would work too; createAppServer creates requests on the app's prototypes (faster).
  const server = createAppServer(app).listen(port, () => {
    console.log(`Minimal shop on http://localhost:${String(port)}`);
  });
  process.once('SIGINT', () => {
    server.close();
    void kit.close();
  });
}
