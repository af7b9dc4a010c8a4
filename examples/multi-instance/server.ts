/**
 * One instance of a shop that runs several instances behind a load balancer. Every instance runs
 * this file with the same configuration: the orders live in one PostgreSQL database, the pay
 * route's rate-limit counters in one Redis, and any instance can answer any request (pay page,
 * return, notification, result), so the load balancer needs no sticky sessions.
 *
 *   DATABASE_URL=postgres://shop@db.internal/shop REDIS_URL=redis://cache.internal:6379 \
 *   PUBLIC_URL=https://shop.example/checkout CHECKOUT_TOKEN_SECRET=<32+ random characters> \
 *   GATEWAY_BASE_URL=https://gateway.example/ GATEWAY_MERCHANT_ID=701001 \
 *   GATEWAY_ACCOUNT_ID=701001010 GATEWAY_SIGN_KEY=<sign key> PORT=3001 \
 *   npx tsx examples/multi-instance/server.ts
 *
 * Importing this module starts nothing; running the file calls `main()`. In your shop, import
 * from 'acquiring-checkout-kit' instead of '../../server/index.js'.
 */
import { pathToFileURL } from 'node:url';
import { createClient } from '@redis/client';
import express from 'express';
import pg from 'pg';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { z } from 'zod';
import {
  ConfigError, consoleLogger, createAppServer, createCheckoutKit, createPostgresStore,
  type CheckoutHooks, type CheckoutKit, type KitGatewayOptions, type Logger,
} from '../../server/index.js';

export interface ShopInstanceConfig {
  /** The one database all instances share. */
  databaseUrl: string;
  /** The one Redis all instances share (rate-limit counters only). */
  redisUrl: string;
  /** The checkout's public address (the load balancer's), the same on every instance. */
  publicUrl: string;
  /** The same on every instance: a link or form made by one instance is checked by another. */
  tokenSecret: string | string[];
  gateway: KitGatewayOptions;
  /** Schema of the order tables. Default `checkout`. */
  schema?: string;
  /** Key prefix of the pay route's counters in Redis. Default `checkout:pay:`. */
  rateLimitPrefix?: string;
  rateLimit?: { windowMs?: number; limit?: number };
  /** Express `trust proxy`: the hops allowed to set X-Forwarded-For. Default `loopback`. */
  trustProxy?: boolean | number | string | string[];
  /** Connections this instance may open. Default 10. */
  poolSize?: number;
  hooks?: CheckoutHooks;
  logger?: Logger;
}

export interface ShopInstance {
  app: express.Express;
  kit: CheckoutKit;
  /** Stops the sweeper (waiting for a run in progress), then closes Redis and the pool. */
  close(): Promise<void>;
}

const envSchema = z.object({
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL'),
  PUBLIC_URL: z.url(),
  CHECKOUT_TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters'),
  GATEWAY_BASE_URL: z.url(),
  GATEWAY_MERCHANT_ID: z.string().min(1),
  GATEWAY_ACCOUNT_ID: z.string().min(1),
  GATEWAY_SIGN_KEY: z.string().min(1),
  CHECKOUT_SCHEMA: z.string().optional(),
  TRUST_PROXY: z.string().optional(),
});

/** Reads the configuration from the environment; a missing or bad variable is a ConfigError naming it. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ShopInstanceConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(name, issue?.message ?? 'is invalid', `set ${name} in the environment of every instance (see docs/multi-instance.md)`);
  }
  const e = parsed.data;
  return {
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    publicUrl: e.PUBLIC_URL,
    tokenSecret: e.CHECKOUT_TOKEN_SECRET,
    gateway: { baseUrl: e.GATEWAY_BASE_URL, merchantId: e.GATEWAY_MERCHANT_ID, accountId: e.GATEWAY_ACCOUNT_ID, signKey: e.GATEWAY_SIGN_KEY },
    ...(e.CHECKOUT_SCHEMA === undefined ? {} : { schema: e.CHECKOUT_SCHEMA }),
    ...(e.TRUST_PROXY === undefined ? {} : { trustProxy: e.TRUST_PROXY }),
  };
}

/** Connects to PostgreSQL and Redis, migrates the order tables and mounts the kit. Listens nowhere. */
export async function createShopInstance(config: ShopInstanceConfig): Promise<ShopInstance> {
  const logger = config.logger ?? consoleLogger('info');
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: config.poolSize ?? 10 });
  // An idle connection dropped by the server is reported here; unhandled, it would end the process.
  pool.on('error', (error) => {
    logger.error({ err: error.message }, 'idle PostgreSQL connection failed');
  });
  const redis = createClient({ url: config.redisUrl });
  redis.on('error', (error: unknown) => {
    logger.error({ err: error instanceof Error ? error.message : String(error) }, 'Redis connection failed');
  });
  try {
    await redis.connect();
    // Applies pending migrations under an advisory lock: instances starting together take turns.
    const store = await createPostgresStore({ pool, schema: config.schema ?? 'checkout', logger });
    const kit = createCheckoutKit({
      gateway: config.gateway,
      publicUrl: config.publicUrl,
      tokenSecret: config.tokenSecret,
      store,
      ...(config.hooks === undefined ? {} : { hooks: config.hooks }),
      logger,
      rateLimit: {
        ...config.rateLimit,
        // One store object per instance, one key prefix for all: the count is shared.
        store: new RedisStore({
          prefix: config.rateLimitPrefix ?? 'checkout:pay:',
          sendCommand: (...args: string[]) => redis.sendCommand<RedisReply>(args),
        }),
      },
      // The sweeper runs on every instance (the default); leases keep two from settling one order.
      sweeper: { enabled: true },
    });

    const app = express();
    // shopper_ip and the rate-limit key come from req.ip: trust the load balancer's X-Forwarded-For.
    app.set('trust proxy', config.trustProxy ?? 'loopback');
    app.use(new URL(config.publicUrl).pathname.replace(/\/+$/, '') || '/', kit.router);
    // Your shop's own routes go here: create the payment with kit.createPayment(…) and redirect to payUrl.

    return {
      app,
      kit,
      async close() {
        await kit.close();
        await redis.close();
        await pool.end();
      },
    };
  } catch (error) {
    if (redis.isOpen) redis.destroy();
    await pool.end().catch(() => undefined);
    throw error;
  }
}

/** Starts one instance on PORT and shuts it down cleanly on SIGTERM / SIGINT. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const logger = consoleLogger('info');
  const shop = await createShopInstance({ ...configFromEnv(env), logger });
  const port = Number(env.PORT ?? 3000);
  const server = createAppServer(shop.app);
  await new Promise<void>((resolve) => server.listen(port, resolve));
  logger.info({ port }, 'shop instance listening');

  const shutdown = (): void => {
    logger.info({}, 'shop instance stopping');
    // Stop taking requests, let those in flight finish, then stop the sweeper and disconnect.
    server.close(() => {
      shop.close().catch((error: unknown) => {
        logger.error({ err: error instanceof Error ? error.message : String(error) }, 'shop instance did not close cleanly');
      });
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
