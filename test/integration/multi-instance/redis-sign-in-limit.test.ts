/**
 * The admin sign-in throttle held in Redis and shared by two shop instances: each instance has
 * its own rate-limit-redis store (express-rate-limit refuses a shared Store object) with one key
 * prefix, and both keep their staff accounts and sessions in one PostgreSQL admin store. Failed
 * sign-ins spread over both instances add up; a session made on one is ended on the other.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@redis/client';
import express from 'express';
import pg from 'pg';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminRouter, createPostgresAdminStore, type AdminStore } from '../../../server/admin/index.js';
import { accountKey } from '../../../server/admin/sign-in/throttle.js';
import { createCheckoutKit, type CheckoutKit } from '../../../server/kit.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { StaffClient } from '../../helpers/staff-client.js';
import { ACCOUNT_ID, MERCHANT_ID, SIGN_KEY, TOKEN_SECRET, uniqueSchema } from './instances.js';
import { announceSkip, postgresProblem, redisProblem, TEST_DATABASE_URL, TEST_REDIS_URL } from './servers.js';

const problems = [await postgresProblem(), await redisProblem()];
announceSkip('shared Redis sign-in throttle over two instances (needs PostgreSQL and Redis)', problems);

const PER_ACCOUNT = 4;
const CSRF_SECRET = `redis-sign-in-csrf-${randomUUID()}`;

describe.skipIf(problems.some((p) => p !== null))('the admin sign-in throttle in Redis, shared by two instances', () => {
  const schema = uniqueSchema('signin');
  const prefix = `test-signin-${randomUUID()}:`;
  const redis = createClient({ url: TEST_REDIS_URL });
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 4 });
  let kit: CheckoutKit;
  const stores: AdminStore[] = [];
  const servers: Server[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    await redis.connect();
    kit = createCheckoutKit({
      gateway: { baseUrl: 'http://127.0.0.1:9/', merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY },
      publicUrl: 'http://127.0.0.1:9/checkout', tokenSecret: TOKEN_SECRET, store: createMemoryStore(), sweeper: { enabled: false },
    });
    for (let i = 0; i < 2; i++) {
      const adminStore = await createPostgresAdminStore({ pool, schema });
      stores.push(adminStore);
      const app = express();
      app.set('trust proxy', 'loopback');
      app.use('/admin', createAdminRouter({
        kit, csrfSecret: CSRF_SECRET, adminStore, resumeOnStart: false,
        signIn: {
          staff: [{ id: 'kim', password: 'kim-password-1' }],
          rateLimit: {
            perAccount: PER_ACCOUNT, perAddress: 1000, windowMs: 60_000,
            store: new RedisStore({ prefix, sendCommand: (...args: string[]) => redis.sendCommand<RedisReply>(args) }),
          },
        },
      }));
      const server = await new Promise<Server>((resolve) => {
        const s = app.listen(0, '127.0.0.1', () => {
          resolve(s);
        });
      });
      servers.push(server);
      urls.push(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}`);
    }
  });

  afterAll(async () => {
    for (const s of servers) {
      await new Promise<void>((resolve) => {
        s.close(() => {
          resolve();
        });
        s.closeAllConnections();
      });
    }
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(keys);
    await redis.close();
    await kit.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  const at = (i: number, ip: string): StaffClient => new StaffClient(urls[i % 2] ?? '', '/admin', { 'x-forwarded-for': ip });

  it('counts failed sign-ins on both instances in one Redis counter and refuses the right password on either once over', { timeout: 60_000 }, async () => {
    // A session made on instance A, used on B: the store is shared.
    const kim = at(0, '192.0.2.10');
    expect((await kim.signIn('kim', 'kim-password-1')).status).toBe(303);
    const onB = StaffClient.withCookies(urls[1] ?? '', kim.saved());
    expect((await onB.get('/')).status).toBe(200);

    const statuses: number[] = [];
    for (let i = 0; i < PER_ACCOUNT; i++) statuses.push((await at(i, `198.51.100.${String(i + 1)}`).signIn('kim', `wrong-${String(i)}`)).status);
    expect(statuses).toEqual(Array<number>(PER_ACCOUNT).fill(401));
    // The account's key is a hash of its name: nothing typed as a name is stored in Redis.
    expect(await redis.get(`${prefix}${accountKey('kim')}`)).toBe(String(PER_ACCOUNT));
    expect(accountKey(' KIM ')).toBe(accountKey('kim'));
    expect(accountKey('kim')).not.toContain('kim');
    // Addresses were counted too, one each; the successful sign-in took its count back.
    expect(await redis.get(`${prefix}address:198.51.100.1`)).toBe('1');
    expect(await redis.get(`${prefix}address:192.0.2.10`)).toBe('0');

    for (const i of [0, 1]) {
      const locked = await at(i, '203.0.113.9').signIn('kim', 'kim-password-1');
      expect(locked.status).toBe(429);
      const retryAfter = Number(locked.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    // Sessions already open are not affected by the lockout; sign-out on B ends the session made on A.
    expect((await kim.get('/')).status).toBe(200);
    expect((await onB.signOut()).status).toBe(303);
    expect((await kim.get('/')).status).toBe(303);

    // The window ends (the key is reset, as the window's end would): the right password works on both.
    await redis.del(`${prefix}${accountKey('kim')}`);
    for (const i of [0, 1]) expect((await at(i, '203.0.113.9').signIn('kim', 'kim-password-1')).status).toBe(303);
  });
});
