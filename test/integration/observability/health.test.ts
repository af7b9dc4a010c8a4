/**
 * kit.health() and /healthz, /readyz over real HTTP: ready with a real SQLite store and the
 * sandbox gateway; unready when the store is closed, the gateway refuses connections or does
 * not answer in time, or a hook call is overdue in the outbox. Answers never carry the URL.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createCheckoutKit, type CheckoutKit } from '../../../server/kit.js';
import { createHealth } from '../../../server/observability/health.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import { createSandbox } from '../../../server/sandbox/index.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

async function listen(app: express.Express | ((req: unknown, res: unknown) => void)): Promise<{ url: string; server: Server }> {
  const server = createServer(app as express.Express);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => { resolve(); });
  }));
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, server };
}

async function kitWith(gatewayUrl: string, gatewayTimeoutMs = 2000): Promise<{ kit: CheckoutKit; shop: string; closeStore: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'health-'));
  const store = createSqliteStore({ path: join(dir, 'orders.sqlite') });
  const kit = createCheckoutKit({
    store,
    gateway: { baseUrl: gatewayUrl, merchantId: '701001', accountId: '701001010', signKey: `k-${randomUUID()}` },
    publicUrl: 'http://127.0.0.1/checkout',
    tokenSecret: `health-token-secret-${randomUUID()}`,
    sweeper: { enabled: false },
    outbox: { enabled: false },
    health: { gatewayTimeoutMs },
  });
  const app = express();
  app.use('/ops', kit.healthRouter);
  const { url } = await listen(app);
  let closed = false;
  const closeStore = async (): Promise<void> => {
    if (!closed) await store.close();
    closed = true;
  };
  cleanups.push(async () => {
    await kit.close();
    await closeStore();
    rmSync(dir, { recursive: true, force: true });
  });
  return { kit, shop: `${url}/ops`, closeStore };
}

async function get(url: string): Promise<{ status: number; body: { status: string; checks?: { name: string; ok: boolean; problem?: string }[] }; text: string; cache: string | null }> {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as never, text, cache: res.headers.get('cache-control') };
}

async function sandboxGateway(): Promise<string> {
  const sandbox = createSandbox({ env: {} });
  const listener = await sandbox.listen(0);
  cleanups.push(async () => {
    await listener.close();
    await sandbox.close();
  });
  return listener.baseUrl;
}

describe('/healthz and /readyz', () => {
  it('ready: the store answers and is migrated, the gateway answers, the outbox is empty', async () => {
    const { kit, shop } = await kitWith(await sandboxGateway());
    const live = await get(`${shop}/healthz`);
    expect(live.status).toBe(200);
    expect(live.body.status).toBe('ok');
    const ready = await get(`${shop}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.cache).toBe('no-store');
    expect(ready.body).toEqual({ status: 'ready', checks: [{ name: 'store', ok: true }, { name: 'gateway', ok: true }, { name: 'outbox', ok: true }] });
    expect((await kit.health()).ready).toBe(true);
  });

  it('unready when the store is closed; /healthz still answers', async () => {
    const { shop, closeStore } = await kitWith(await sandboxGateway());
    await closeStore();
    const ready = await get(`${shop}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('unready');
    expect(ready.body.checks?.find((c) => c.name === 'store')).toEqual({ name: 'store', ok: false, problem: 'unreachable' });
    expect((await get(`${shop}/healthz`)).status).toBe(200);
  });

  it('unready when the gateway refuses connections, without naming its address', async () => {
    const { url, server } = await listen(express());
    const port = String((server.address() as AddressInfo).port);
    await new Promise<void>((resolve) => {
      server.close(() => { resolve(); });
    });
    const { shop } = await kitWith(url);
    const ready = await get(`${shop}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.body.checks?.find((c) => c.name === 'gateway')).toEqual({ name: 'gateway', ok: false, problem: 'unreachable' });
    expect(ready.body.checks?.find((c) => c.name === 'store')?.ok).toBe(true);
    expect(ready.text).not.toContain(port);
    expect(ready.text).not.toContain('127.0.0.1');
  });

  it('unready when the gateway does not answer within the timeout', async () => {
    // Accepts the connection and never answers.
    const { url } = await listen(() => undefined);
    const { shop } = await kitWith(url, 200);
    const ready = await get(`${shop}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.body.checks?.find((c) => c.name === 'gateway')).toEqual({ name: 'gateway', ok: false, problem: 'timeout' });
  });
});

describe('the outbox check', () => {
  it('a hook call overdue by more than outboxStuckAfterMs makes the kit unready', async () => {
    const store = createMemoryStore();
    const gatewayUrl = await sandboxGateway();
    // 1 s: long enough that a busy machine cannot make the first check late, short enough to wait out.
    const health = createHealth({ store, gatewayUrl, outboxStuckAfterMs: 1000 });
    expect((await health()).ready).toBe(true);

    const order = await store.create({ id: randomUUID(), orderNo: `H-${randomUUID().slice(0, 8)}`, amount: 100, currency: 'USD' });
    await store.transition(order.id, order.version, { state: 'pending' }, undefined, { outbox: [{ hook: 'onTransition', payload: { source: 'api', from: 'created', to: 'pending' } }] });
    // Due now: not stuck yet.
    expect((await health()).checks.find((c) => c.name === 'outbox')).toEqual({ name: 'outbox', ok: true });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const report = await health();
    expect(report.ready).toBe(false);
    expect(report.checks.find((c) => c.name === 'outbox')).toEqual({ name: 'outbox', ok: false, problem: 'stuck' });
  });
});
