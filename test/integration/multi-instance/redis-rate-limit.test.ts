/**
 * The pay route's rate limit held in Redis and shared by two instances, each built by
 * examples/multi-instance/server.ts (PostgreSQL store, rate-limit-redis on @redis/client, the
 * kit mounted, the sweeper on) behind a load balancer that passes X-Forwarded-For.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@redis/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShopInstance, type ShopInstance } from '../../../examples/multi-instance/server.js';
import { silentLogger } from '../../../server/logging.js';
import { createSandbox, type Sandbox, type SandboxListener } from '../../../server/sandbox/index.js';
import { CARD, cardFields, payForm, paymentInput } from '../checkout/journeys-harness.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, TOKEN_SECRET, uniqueOrderNo, uniqueSchema } from './instances.js';
import { announceSkip, postgresProblem, redisProblem, TEST_DATABASE_URL, TEST_REDIS_URL } from './servers.js';
import { Shopper } from './shopper.js';

const problems = [await postgresProblem(), await redisProblem()];
announceSkip('shared Redis rate limit over two instances (needs PostgreSQL and Redis)', problems);

const LIMIT = 5;
const SHOPPER_IP = '203.0.113.7';
const OTHER_SHOPPER_IP = '198.51.100.23';

interface Running {
  url: string;
  shop: ShopInstance;
  server: Server;
}

describe.skipIf(problems.some((p) => p !== null))('the pay rate limit in Redis, shared by two instances', () => {
  const schema = uniqueSchema('rl');
  const prefix = `test-rl-${randomUUID()}:`;
  let sandbox: Sandbox;
  let gateway: SandboxListener;
  let instances: Running[] = [];

  /** Listens first (the kit needs its public URL), then hands requests to the instance's app. */
  async function start(): Promise<Running> {
    let handler: RequestListener = (_req, res) => {
      res.statusCode = 503;
      res.end();
    };
    const server = createServer((req, res) => {
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
    const shop = await createShopInstance({
      databaseUrl: TEST_DATABASE_URL ?? '',
      redisUrl: TEST_REDIS_URL ?? '',
      publicUrl: `${url}/checkout`,
      tokenSecret: TOKEN_SECRET,
      gateway: { baseUrl: gateway.baseUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY, timeoutMs: 5000 },
      schema,
      rateLimitPrefix: prefix,
      rateLimit: { limit: LIMIT },
      trustProxy: 'loopback',
      poolSize: 4,
      logger: silentLogger,
    });
    handler = shop.app;
    return { url, shop, server };
  }

  beforeAll(async () => {
    sandbox = createSandbox({ accounts: [{ merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY }], notifyTimeScale: 0.00005, env: {} });
    gateway = await sandbox.listen(0);
    // Both start at once, as after a deploy: the migrations take turns under the advisory lock.
    instances = await Promise.all([start(), start()]);
  });

  afterAll(async () => {
    for (const { server } of instances) {
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      });
    }
    const redis = createClient({ url: TEST_REDIS_URL });
    await redis.connect();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(keys);
    await redis.close();
    for (const { shop } of instances) await shop.close();
    await gateway.close();
    await sandbox.close();
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  const instance = (i: number): Running => instances[i % 2]!;
  const siteOf = (url: URL): string => (url.origin === gateway.baseUrl ? 'gateway' : 'shop');

  /** Creates an order on one instance, opens its pay page there and posts the card to the other. */
  async function attempt(i: number, shopper: Shopper): Promise<{ orderNo: string; status: number; html: string }> {
    const orderNo = uniqueOrderNo(`RL-${String(i)}`);
    const { payUrl } = await instance(i + 1).shop.kit.createPayment(paymentInput(orderNo));
    const form = payForm(await shopper.get(payUrl), 'card');
    const page = await shopper.submit(form, { fill: cardFields(CARD.approve), via: instance(i).url });
    return { orderNo, status: page.status, html: page.html };
  }

  it(`answers 429 to the ${String(LIMIT + 1)}th pay attempt overall, spread over both instances`, { timeout: 60_000 }, async () => {
    const shopper = new Shopper(siteOf, { 'x-forwarded-for': SHOPPER_IP });
    const attempts = [];
    for (let i = 0; i <= LIMIT; i++) attempts.push(await attempt(i, shopper));

    expect(attempts.map((a) => a.status)).toEqual([...Array<number>(LIMIT).fill(200), 429]);
    const kit = instances[0]!.shop.kit;
    for (const a of attempts.slice(0, LIMIT)) {
      expect(a.html).toMatch(/Payment received/);
      expect((await kit.store.getByOrderNo(a.orderNo))?.state).toBe('paid');
      // The load balancer's X-Forwarded-For reached the gateway as shopper_ip.
      expect(sandbox.ledger.transaction(a.orderNo)?.details.shopper_ip).toBe(SHOPPER_IP);
    }
    // The refused attempt sent nothing: the order was never submitted and the gateway never saw it.
    const refused = attempts[LIMIT]!;
    expect(refused.html).toMatch(/Too many attempts/);
    const order = await kit.store.getByOrderNo(refused.orderNo);
    expect(order?.state).toBe('created');
    expect(order?.data.submittedAt).toBeUndefined();
    expect(sandbox.ledger.transaction(refused.orderNo)).toBeUndefined();

    // One counter in Redis for this shopper, counted by both instances.
    const redis = createClient({ url: TEST_REDIS_URL });
    await redis.connect();
    try {
      expect(await redis.get(`${prefix}${SHOPPER_IP}`)).toBe(String(LIMIT + 1));
    } finally {
      await redis.close();
    }

    // Another shopper behind the same load balancer has a count of their own.
    const other = await attempt(LIMIT + 1, new Shopper(siteOf, { 'x-forwarded-for': OTHER_SHOPPER_IP }));
    expect(other.status).toBe(200);
    expect(sandbox.ledger.transaction(other.orderNo)?.details.shopper_ip).toBe(OTHER_SHOPPER_IP);
  });
});
