/**
 * Two shop instances, A and B, as two processes would run them: each its own pg.Pool to the same
 * database (one schema per test file), its own PostgreSQL store, checkout kit, Express app and
 * port-0 listener, in front of one sandbox gateway. The hooks of both write to one shared list,
 * so "exactly once" is checked across the instances, not within one.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';
import type { CheckoutKitOptions } from '../../../server/checkout/options-types.js';
import { createCheckoutKit, type CheckoutKit } from '../../../server/kit.js';
import type { Logger } from '../../../server/logging.js';
import type { OrderHooks } from '../../../server/orders/hooks.js';
import { createPostgresStore, type PostgresOrderStore } from '../../../server/orders/stores/postgres.js';
import type { OrderEvent } from '../../../server/orders/types.js';
import { createSandbox, type Sandbox, type SandboxListener } from '../../../server/sandbox/index.js';
import { TEST_DATABASE_URL } from './servers.js';

export const MERCHANT_ID = '701001';
export const ACCOUNT_ID = '701001010';
export const SIGN_KEY = `multi-sign-key-${randomUUID()}`;
export const TOKEN_SECRET = `multi-token-secret-${randomUUID()}`;

const HOOK_NAMES = [
  'onTransition', 'onPaid', 'onAuthorized', 'onFailed', 'onCancelled', 'onExpired', 'onRefunded',
  'onChargeback', 'onInReview', 'onRequiresAction', 'onAttention',
] as const;

export type InstanceName = 'A' | 'B';

export interface HookCall {
  instance: InstanceName;
  hook: string;
  orderNo: string;
  to: string | null;
}

export interface Instance {
  name: InstanceName;
  /** Origin of this instance's listener. */
  url: string;
  kit: CheckoutKit;
  store: PostgresOrderStore;
  pool: pg.Pool;
}

export interface Instances {
  sandbox: Sandbox;
  gateway: SandboxListener;
  a: Instance;
  b: Instance;
  schema: string;
  /** Hook calls of both instances, in call order. */
  hookCalls: HookCall[];
  /** What the sandbox logged, one object per line ("sandbox request" lines name each operation). */
  sandboxLogs: Record<string, unknown>[];
  /** What both kits logged (through their redacting loggers), with the instance's name. */
  kitLogs: Record<string, unknown>[];
  /** Requests the sandbox received for `operation` naming `orderNo`. */
  gatewayRequests(operation: string, orderNo: string): number;
  close(): Promise<void>;
}

export function uniqueSchema(label: string): string {
  return `t_${label}_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}

export function uniqueOrderNo(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 13)}`;
}

function recordingLogger(lines: Record<string, unknown>[], tags: Record<string, string> = {}): Logger {
  const write = (level: string) => (obj: Record<string, unknown>, msg?: string): void => {
    lines.push({ level, msg, ...tags, ...obj });
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

async function listen(app: express.Express): Promise<{ server: Server; url: string }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}` };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });
}

/** Starts the sandbox and both instances; both stores are created (and migrate) at the same moment. */
export async function startInstances(label: string, kitOptions: Partial<CheckoutKitOptions> = {}): Promise<Instances> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  const schema = uniqueSchema(label);
  const sandboxLogs: Record<string, unknown>[] = [];
  const kitLogs: Record<string, unknown>[] = [];
  const hookCalls: HookCall[] = [];
  const sandbox = createSandbox({
    accounts: [{ merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY }],
    // The whole 36-hour retry schedule in about five seconds: a notification answered 503
    // (the order's lease is busy on the other instance) is retried soon.
    notifyTimeScale: 0.00005,
    logger: recordingLogger(sandboxLogs),
    env: {},
  });
  const gateway = await sandbox.listen(0);

  const pools = [new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 8 }), new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 8 })];
  for (const pool of pools) pool.on('error', () => undefined);
  const [storeA, storeB] = await Promise.all(pools.map((pool) => createPostgresStore({ pool, schema })));
  const apps = [express(), express()];
  const listeners = await Promise.all(apps.map(listen));

  const hooksOf = (instance: InstanceName): OrderHooks => {
    const hooks: Record<string, unknown> = {};
    for (const hook of HOOK_NAMES) {
      hooks[hook] = (order: { orderNo: string }, info?: unknown) => {
        const to = typeof info === 'object' && info !== null && 'to' in info ? String(info.to) : null;
        hookCalls.push({ instance, hook, orderNo: order.orderNo, to });
      };
    }
    return hooks;
  };

  const instances = (['A', 'B'] as const).map((name, i): Instance => {
    const store = i === 0 ? storeA : storeB;
    const listener = listeners[i];
    const app = apps[i];
    const pool = pools[i];
    if (!store || !listener || !app || !pool) throw new Error(`instance ${name} did not start`);
    const kit = createCheckoutKit({
      gateway: { baseUrl: gateway.baseUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY, timeoutMs: 3000 },
      publicUrl: `${listener.url}/checkout`,
      tokenSecret: TOKEN_SECRET,
      website: 'shop.test',
      store,
      hooks: hooksOf(name),
      logger: recordingLogger(kitLogs, { instance: name }),
      rateLimit: { limit: 1000 },
      // The tests drive the sweepers with runOnce(); stuckAfterMs is tiny so every open order is due.
      sweeper: { enabled: false, stuckAfterMs: 1, expireAfterMs: 10 * 60 * 1000 },
      ...kitOptions,
    });
    app.use('/checkout', kit.router);
    return { name, url: listener.url, kit, store, pool };
  });
  const [a, b] = instances as [Instance, Instance];

  return {
    sandbox,
    gateway,
    a,
    b,
    schema,
    hookCalls,
    sandboxLogs,
    kitLogs,
    gatewayRequests: (operation, orderNo) =>
      sandboxLogs.filter((l) => l.msg === 'sandbox request' && l.operation === operation && l.orderNo === orderNo).length,
    async close() {
      await Promise.all([a.kit.close(), b.kit.close()]);
      await Promise.all(listeners.map((l) => closeServer(l.server)));
      await gateway.close();
      await sandbox.close();
      await a.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
      await Promise.all(pools.map((pool) => pool.end()));
    },
  };
}

export const transitionsOf = (events: readonly OrderEvent[]): OrderEvent[] => events.filter((e) => e.type === 'transition');
