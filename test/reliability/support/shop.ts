/**
 * An in-process shop for the scenarios: the sandbox gateway and a shop app with the checkout kit
 * (and optionally the staff admin) on real ports, a real SQLite order store, hooks and logs
 * recorded, and every gateway request the kit sends counted (to prove nothing is sent twice).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import express from 'express';
import { createAdminRouter, createSqliteAdminStore, type AdminRouter, type SignInOptions } from '../../../server/admin/index.js';
import type { CheckoutKitOptions } from '../../../server/checkout/options-types.js';
import { createAppServer } from '../../../server/http/app-server.js';
import { createCheckoutKit, type CheckoutKit } from '../../../server/kit.js';
import type { Logger } from '../../../server/logging.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import { createSandbox, type Sandbox, type SandboxListener } from '../../../server/sandbox/index.js';
import type { CardScanner } from './card-scan.js';
import { ACCOUNT_ID, MERCHANT_ID, recordingHooks, shopRoutes, type HookCall } from './shop-app.js';

export { ACCOUNT_ID, MERCHANT_ID, type HookCall } from './shop-app.js';
export const STAFF_HEADER = 'x-staff';
export const ADMIN_CSRF_SECRET = `admin-csrf-${randomUUID()}-${randomUUID()}`;

/** One request the kit's client sent to the gateway. */
export interface GatewayCall {
  operation: string;
  /** order_no, request_id and transaction ids named in the body. */
  keys: string[];
  /** HTTP status, or 'error'. */
  outcome: string;
}

export interface ServedRequest {
  route: string;
  ms: number;
}

export interface ShopOptions {
  captureMode?: 'auto' | 'manual';
  notifyTimeScale?: number;
  /** How long the sandbox waits for the shop to answer a notification (default 5 s). */
  notifyTimeoutMs?: number;
  kit?: Partial<CheckoutKitOptions>;
  /** An order store to use instead of a fresh SQLite file. */
  store?: OrderStore;
  admin?: boolean;
  /** The admin with the kit's own sign-in (SQLite admin store, trust proxy loopback) instead of the staff header. */
  adminSignIn?: SignInOptions;
  /** The kit's gateway timeout (default 5 s: the machine may be busy). */
  timeoutMs?: number;
}

export interface Shop {
  /** The shop's app, for a scenario's own routes (mounted after the kit's). */
  app: express.Express;
  sandbox: Sandbox;
  gateway: SandboxListener;
  url: string;
  kit: CheckoutKit;
  admin: AdminRouter | null;
  signKey: string;
  tokenSecret: string;
  hookCalls: HookCall[];
  logs: string[];
  calls: GatewayCall[];
  sqlitePath: string | null;
  sandboxPath: string;
  /** Every request the shop answered: its path's first two segments and how long it took. */
  served: ServedRequest[];
  /** Order ids created through POST /shop/orders or createPayment, by order number. */
  createOrder(orderNo: string, amount: number, currency?: string): Promise<{ orderId: string; payUrl: string }>;
  /** Scans the SQLite files and every log line for card data. */
  scan(scanner: CardScanner): void;
  close(): Promise<void>;
}

export function capturingLogger(lines: string[]): Logger {
  const write = (level: string) => (obj: Record<string, unknown>, msg?: string): void => {
    lines.push(JSON.stringify({ level, msg, ...obj }, (_k, v: unknown) => (v instanceof Error ? { name: v.name, message: v.message } : v)));
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** order_no, request_id and transaction ids a gateway request names. */
export function keysOf(body: string): string[] {
  const keys: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if ((k === 'order_no' || k === 'request_id' || k === 'transaction_id') && typeof v === 'string') keys.push(v);
        else if (typeof v === 'object') visit(v);
      }
    }
  };
  try {
    visit(JSON.parse(body));
  } catch {
    const form = new URLSearchParams(body);
    for (const name of ['order_no', 'request_id']) {
      const v = form.get(name);
      if (v !== null) keys.push(v);
    }
    for (const v of (form.get('orders') ?? '').split(',')) if (v !== '') keys.push(v);
  }
  return keys;
}

/**
 * Idle connections are kept well past the clients' own idle timeouts (fetch keeps one for the
 * server's announced `Keep-Alive: timeout` less 2 s; the notifier's agent, until the server
 * closes it), so the server never closes a connection as a client reuses it, and clients rarely
 * need a new one: a busy event loop accepts one connection per turn, and a churn of connections
 * overflows the listen queue (connect timeouts, requests never read). See docs/reliability.md#load.
 */
export const SHOP_KEEP_ALIVE_MS = 65_000;
/** Room for every shopper and notification to connect at once at the start of a load run. */
export const SHOP_LISTEN_BACKLOG = 2048;

function listen(app: express.Express, served: ServedRequest[]): Promise<Server> {
  // The server shops are told to use (docs/checkout.md), so the scenarios run on it.
  const server = createAppServer(app, { keepAliveTimeout: SHOP_KEEP_ALIVE_MS });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const route = `${req.method ?? ''} ${(req.url ?? '').split(/[?#]/)[0]!.split('/').slice(0, 3).join('/')}`;
    res.once('close', () => served.push({ route, ms: performance.now() - started }));
  });
  // Above keepAliveTimeout, as Node's docs advise, so a slow request's headers are not cut first.
  server.headersTimeout = SHOP_KEEP_ALIVE_MS + 1000;
  return new Promise((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: SHOP_LISTEN_BACKLOG }, () => {
    resolve(server);
  }));
}

export async function startShop(options: ShopOptions = {}): Promise<Shop> {
  const dir = mkdtempSync(join(tmpdir(), 'reliability-'));
  const logs: string[] = [];
  const hookCalls: HookCall[] = [];
  const calls: GatewayCall[] = [];
  const signKey = `reliability-sign-key-${randomUUID()}`;
  const tokenSecret = `reliability-token-secret-${randomUUID()}`;
  const sandboxPath = join(dir, 'sandbox.sqlite');
  const sandbox = createSandbox({
    accounts: [{ merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey, captureMode: options.captureMode ?? 'auto' }],
    // The gateway's 36-hour retry schedule in about 11 seconds.
    notifyTimeScale: options.notifyTimeScale ?? 0.0001,
    notifyTimeoutMs: options.notifyTimeoutMs ?? 5000,
    sqlitePath: sandboxPath,
    logger: capturingLogger(logs),
    env: {},
  });
  const gateway = await sandbox.listen(0);
  const app = express();
  const served: ServedRequest[] = [];
  const server = await listen(app, served);
  const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;

  const recordingFetch: typeof fetch = async (input, init) => {
    const target = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const body = typeof init?.body === 'string' ? init.body : init?.body instanceof URLSearchParams ? init.body.toString() : '';
    const call: GatewayCall = { operation: target.pathname.replace(/^.*\/v1\//, ''), keys: keysOf(body), outcome: 'pending' };
    calls.push(call);
    try {
      const res = await fetch(input, init);
      call.outcome = String(res.status);
      return res;
    } catch (err) {
      call.outcome = 'error';
      throw err;
    }
  };

  const sqlitePath = options.store === undefined ? join(dir, 'orders.sqlite') : null;
  const store = options.store ?? createSqliteStore({ path: sqlitePath! });
  const kit = createCheckoutKit({
    store,
    gateway: { baseUrl: gateway.baseUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey, timeoutMs: options.timeoutMs ?? 5000 },
    publicUrl: `${url}/checkout`,
    tokenSecret,
    website: 'shop.test',
    hooks: recordingHooks((call) => hookCalls.push(call)),
    logger: capturingLogger(logs),
    rateLimit: { limit: 1_000_000 },
    sweeper: { enabled: false, stuckAfterMs: 1, expireAfterMs: 2 },
    fetch: recordingFetch,
    ...options.kit,
  });
  let admin: AdminRouter | null = null;
  const adminSqlite = options.adminSignIn === undefined ? null : createSqliteAdminStore({ path: join(dir, 'admin.sqlite') });
  if (options.adminSignIn !== undefined && adminSqlite !== null) {
    // Sign-in throttling counts per client address: X-Forwarded-For from loopback is believed.
    app.set('trust proxy', 'loopback');
    admin = createAdminRouter({
      kit,
      signIn: options.adminSignIn,
      csrfSecret: ADMIN_CSRF_SECRET,
      adminStore: adminSqlite,
      logger: capturingLogger(logs),
    });
    app.use('/admin', admin);
  } else if (options.admin === true) {
    admin = createAdminRouter({
      kit,
      authorize: (req) => {
        const id = req.get(STAFF_HEADER);
        return id === undefined || id === '' ? null : { id, name: `Staff ${id}` };
      },
      csrfSecret: ADMIN_CSRF_SECRET,
      // The kit's own: payout notifications the kit takes update the payouts staff send.
      adminStore: kit.adminStore,
      logger: capturingLogger(logs),
    });
    app.use('/admin', admin);
  }
  app.use('/checkout', kit.router);
  app.use(shopRoutes(kit));

  return {
    app,
    sandbox,
    gateway,
    url,
    kit,
    admin,
    signKey,
    tokenSecret,
    hookCalls,
    logs,
    calls,
    sqlitePath,
    sandboxPath,
    served,
    async createOrder(orderNo, amount, currency = 'USD') {
      const res = await fetch(`${url}/shop/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orderNo, amount, currency }) });
      if (res.status !== 200) throw new Error(`creating ${orderNo} answered ${String(res.status)}: ${await res.text()}`);
      return (await res.json()) as { orderId: string; payUrl: string };
    },
    scan(scanner) {
      if (sqlitePath !== null) scanner.sqliteFile(sqlitePath);
      scanner.sqliteFile(sandboxPath);
      if (adminSqlite !== null) scanner.sqliteFile(join(dir, 'admin.sqlite'));
      for (const line of logs) scanner.text('log', line);
    },
    async close() {
      await admin?.idle();
      await adminSqlite?.close?.();
      await kit.close();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      });
      await gateway.close();
      await sandbox.close();
      if (options.store === undefined) await store.close?.();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
