/**
 * One shop under test: an Express app with the checkout kit mounted on its own port of
 * 127.0.0.1, talking to the gateway process (bench/gateway.ts) or, when a scenario asks for it,
 * to a sandbox inside the same process. The kit's orders live in a real SQLite file (WAL, the
 * store's own settings) and the sandbox's ledger in another, both written beforehand by the
 * seeder process (bench/seeder.ts), so the server's memory holds nothing but the server.
 * The kit runs with its defaults except where a benchmark needs otherwise: no background
 * sweeper (the sweep is timed on its own), a pay rate limit far above the load, and the
 * notification confirmation mode under test.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express from 'express';
import type { CheckoutKitOptions } from '../server/checkout/options-types.js';
import { createCheckoutKit, type CheckoutKit } from '../server/kit.js';
import { createPostgresStore } from '../server/orders/stores/postgres.js';
import { createSqliteStore } from '../server/orders/stores/sqlite.js';
import type { OrderStore } from '../server/orders/store.js';
import type { Sandbox, SandboxListener } from '../server/sandbox/index.js';
import type { CaptureMode } from '../server/sandbox/types.js';
import { listenCounting } from './counting-server.js';
import type { PgTarget, StoreFloor } from './protocol.js';
import { payDirectFloorHandlers, renderFloorHandlers, storeFloorHandlers } from './store-floor.js';

export const MERCHANT_ID = '701001';
export const ACCOUNT_ID = '701001010';
/** Shared by the runner's children (inherited environment), fresh for every run. */
const RUN_SECRET = process.env.CHECKOUT_BENCH_SECRET ?? randomUUID();
export const SIGN_KEY = `bench-sign-key-${RUN_SECRET}`;
const TOKEN_SECRET = `bench-token-secret-${RUN_SECRET}`;

export const ordersFile = (dir: string): string => join(dir, 'orders.sqlite');
export const sandboxFile = (dir: string): string => join(dir, 'sandbox.sqlite');

/** The kit's options every process of a run shares (same secrets, same mount path). */
export function kitOptions(publicUrl: string, gatewayUrl: string, gatewayFetch?: typeof fetch): Omit<CheckoutKitOptions, 'store'> {
  return {
    gateway: { baseUrl: gatewayUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY, ...(gatewayFetch === undefined ? {} : { fetch: gatewayFetch }) },
    publicUrl,
    tokenSecret: TOKEN_SECRET,
    website: 'shop.example',
    rateLimit: { limit: 1_000_000_000 },
    sweeper: { enabled: false },
  };
}

export interface FixtureOptions {
  /** Directory holding the seeded SQLite files. */
  dir: string;
  /** The gateway process's sandbox, or null for a sandbox in this process over `dir`'s ledger. */
  gatewayUrl: string | null;
  confirmNotifications?: boolean;
  /** Of the in-process sandbox. */
  captureMode?: CaptureMode;
  /** The kit's orders are in this PostgreSQL schema (seeded), not in SQLite. */
  pg?: PgTarget;
  /**
   * The SQLite store's options (the benchmark's comparisons of its write path); the kit's
   * gateway `fetch` (a transport to compare with the client's own).
   */
  sqlite?: { backgroundSync?: boolean; backgroundCheckpoints?: boolean };
  gatewayFetch?: typeof fetch;
  /**
   * Serve the store's part of notify, render or pay_direct alone (bench/store-floor.ts) instead of
   * the kit's routes; pay_direct's calls `gatewayUrl` as the gateway baseline calls its upstream.
   */
  storeFloor?: StoreFloor | undefined;
}

export interface Fixture {
  kit: CheckoutKit;
  /** The in-process sandbox and its listener (null when the gateway is another process). */
  inProcess: { sandbox: Sandbox; gateway: SandboxListener } | null;
  /** Origin of the shop, e.g. http://127.0.0.1:40123 (the kit is mounted at /checkout). */
  shopUrl: string;
  /** Orders by state. */
  countStates(): Promise<Record<string, number>>;
  /** Requests answered (or abandoned by the client) so far. */
  handled(): number;
  /** Resolves once no request is being handled (the load generator may stop mid-request). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export async function startFixture(options: FixtureOptions): Promise<Fixture> {
  let inProcess: Fixture['inProcess'] = null;
  if (options.gatewayUrl === null) {
    // Loaded only here: a shop's process holds no sandbox, and every module counts in its live heap.
    const { openSandbox } = await import('./open-sandbox.js');
    const { sandbox } = openSandbox(options.dir, options.captureMode);
    inProcess = { sandbox, gateway: await sandbox.listen(0) };
  }
  const gatewayUrl = inProcess?.gateway.baseUrl ?? options.gatewayUrl ?? '';

  // The store opens its file itself, with its defaults, as in a shop; `db` only counts states.
  const store: OrderStore & { close(): Promise<void> } =
    options.pg === undefined
      ? createSqliteStore({ path: ordersFile(options.dir), ...options.sqlite })
      : await createPostgresStore({ connectionString: options.pg.url, schema: options.pg.schema, migrate: false });
  const db = options.pg === undefined ? new Database(ordersFile(options.dir), { readonly: true }) : null;
  // PostgreSQL: one connection of our own, only for counting.
  const counter = options.pg === undefined ? null : new (await import('pg')).default.Pool({ connectionString: options.pg.url, max: 1 });
  const statesSql = `SELECT state, COUNT(*) AS n FROM ${options.pg === undefined ? '' : `"${options.pg.schema}".`}checkout_orders GROUP BY state`;
  const countStates = async (): Promise<Record<string, number>> => {
    const rows: { state: string; n: number | string }[] =
      counter === null ? (db?.prepare(statesSql).all() as { state: string; n: number }[]) : (await counter.query<{ state: string; n: string }>(statesSql)).rows;
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  };
  const app = express();
  const server = await listenCounting(app);
  const shopUrl = server.url;
  const kit = createCheckoutKit({
    ...kitOptions(`${shopUrl}/checkout`, gatewayUrl, options.gatewayFetch),
    store,
    confirmNotifications: options.confirmNotifications ?? true,
  });
  if (options.storeFloor === 'notify') app.post('/checkout/notify', ...storeFloorHandlers(store));
  else if (options.storeFloor === 'render') app.post('/checkout/pay/:token', ...renderFloorHandlers(store, kit.context.tokens));
  else if (options.storeFloor === 'pay_direct') app.post('/checkout/pay/:token', ...payDirectFloorHandlers(store, kit.context.tokens, gatewayUrl));
  else app.use('/checkout', kit.router);

  return {
    kit,
    inProcess,
    shopUrl,
    countStates,
    handled: () => server.handled(),
    idle: () => server.idle(),
    async close() {
      await kit.close();
      await server.close();
      await inProcess?.gateway.close();
      await inProcess?.sandbox.close();
      // The kit closes only a store it created: this one (its checkpoint thread, its file) is ours.
      await store.close();
      db?.close();
      await counter?.end();
    },
  };
}
