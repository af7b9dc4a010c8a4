/**
 * Needs: `npm install acquiring-checkout-kit express` in an ESM app (`"type": "module"`).
 *
 * The route files of this folder mounted together in one small shop, runnable against the
 * sandbox (`npx acquiring-checkout-kit sandbox` first):
 *
 *   npx tsx examples/routes/server.ts      # http://localhost:3002
 *
 * `createRoutesShop` is what the tests use; the cart is a sample one so the routes stay the point.
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import express from 'express';
import { createAppServer, createCheckoutKit, createSqliteStore, type CheckoutKit, type CheckoutKitOptions } from 'acquiring-checkout-kit';
import { checkoutRoute, type Cart } from './checkout-route.js';
import { mountCheckout } from './notify.js';
import { resultRoute } from './result-route.js';

export interface RoutesShopConfig {
  shopUrl: string;
  gateway: CheckoutKitOptions['gateway'];
  tokenSecret: string;
  database: string;
  /** The shopper's cart (your session or database); default: a sample cart. */
  cart?: () => Cart;
}

/** A fresh cart per checkout, so every visit of the runnable example makes a new order. */
const sampleCart = (): Cart => ({
  id: randomBytes(6).toString('hex'),
  revision: 1,
  currency: 'EUR',
  lines: [
    { sku: 'MUG-1', name: 'Stoneware mug', unitPrice: 1450, quantity: 2 },
    { sku: 'TEA-1', name: 'Sencha 100 g', unitPrice: 890, quantity: 1 },
  ],
});

export function createRoutesShop(config: RoutesShopConfig): { app: express.Express; kit: CheckoutKit } {
  const kit = createCheckoutKit({
    gateway: config.gateway,
    publicUrl: `${config.shopUrl}/checkout`,
    tokenSecret: config.tokenSecret,
    store: createSqliteStore({ path: config.database }),
  });
  const app = express();
  app.use(resultRoute(kit)); // before the kit's router, which has a result page of its own
  mountCheckout(app, kit);
  app.use(checkoutRoute(kit, () => Promise.resolve((config.cart ?? sampleCart)())));
  app.get('/', (_req, res) => {
    res.type('html').send('<form method="post" action="/checkout"><input name="email" type="email" required value="ada@example.com"><button>Check out</button></form>');
  });
  return { app, kit };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const port = Number(process.env.PORT ?? '3002');
  const { app, kit } = createRoutesShop({
    shopUrl: `http://localhost:${String(port)}`,
    gateway: {
      baseUrl: process.env.GATEWAY_BASE_URL ?? 'http://127.0.0.1:4000',
      merchantId: process.env.GATEWAY_MERCHANT_ID ?? '701001',
      accountId: process.env.GATEWAY_ACCOUNT_ID ?? '701001010',
      signKey: process.env.GATEWAY_SIGN_KEY ?? 'sandbox-sign-key-not-secret',
    },
    tokenSecret: process.env.CHECKOUT_TOKEN_SECRET ?? randomBytes(32).toString('base64url'),
    database: process.env.CHECKOUT_DATABASE ?? 'data/routes.sqlite',
  });
  const server = createAppServer(app).listen(port, () => {
    console.log(`Routes example on http://localhost:${String(port)}`);
  });
  process.once('SIGINT', () => {
    server.close();
    void kit.close();
  });
}
