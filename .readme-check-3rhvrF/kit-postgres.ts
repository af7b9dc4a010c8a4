// kit-postgres.ts
import { createClient } from '@redis/client';
import pg from 'pg';
import { RedisStore } from 'rate-limit-redis';
import { createCheckoutKit, createPostgresAdminStore, createPostgresStore } from 'acquiring-checkout-kit';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
const redis = createClient({ url: process.env.REDIS_URL });
await redis.connect();

export const kit = createCheckoutKit({
  gateway: {
    baseUrl: 'https://gateway.example',
    merchantId: process.env.GATEWAY_MERCHANT_ID ?? '',
    accountId: process.env.GATEWAY_ACCOUNT_ID ?? '',
    signKey: process.env.GATEWAY_SIGN_KEY ?? '',
  },
  publicUrl: 'https://shop.example/checkout',
  tokenSecret: process.env.CHECKOUT_TOKEN_SECRET ?? '', // the same on every instance
  store: await createPostgresStore({ pool, schema: 'checkout' }),
  rateLimit: {
    store: new RedisStore({ prefix: 'checkout-pay:', sendCommand: (...args: string[]) => redis.sendCommand(args) }),
  },
});

export const adminStore = await createPostgresAdminStore({ pool, schema: 'checkout' });
