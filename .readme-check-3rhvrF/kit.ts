// kit.ts
import { createCheckoutKit, createSqliteStore } from 'acquiring-checkout-kit';

export const kit = createCheckoutKit({
  gateway: {
    baseUrl: process.env.GATEWAY_BASE_URL ?? 'http://127.0.0.1:4000', // the sandbox (`npm run sandbox`)
    merchantId: process.env.GATEWAY_MERCHANT_ID ?? '701001',
    accountId: process.env.GATEWAY_ACCOUNT_ID ?? '701001010',
    signKey: process.env.GATEWAY_SIGN_KEY ?? 'sandbox-sign-key-not-secret',
  },
  publicUrl: 'https://shop.example/checkout',          // where kit.router is mounted
  tokenSecret: process.env.CHECKOUT_TOKEN_SECRET ?? '', // ≥ 32 random characters, kept across restarts
  store: createSqliteStore({ path: 'data/checkout.sqlite' }),
  hooks: {
    // Owed once per order, whether the news came from the pay page, 3-D Secure, a
    // notification or the background sweeper; delivered at least once (retried after a crash
    // or a throw), with the same eventId each time: docs/orders.md shows how to act once.
    onPaid: async (order, { eventId }) => {
      console.log(`ship order ${order.orderNo} (event ${eventId})`);
    },
    onFailed: (order) => {
      console.log(`order ${order.orderNo} was not paid (${order.state})`);
    },
  },
});
