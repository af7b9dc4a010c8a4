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
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express from 'express';
import type { CheckoutKitOptions } from '../server/checkout/options-types.js';
import { createCheckoutKit, type CheckoutKit } from '../server/kit.js';
import { createSqliteStore } from '../server/orders/stores/sqlite.js';
import { LedgerStore } from '../server/sandbox/ledger.js';
import { createSandbox, type Sandbox, type SandboxListener } from '../server/sandbox/index.js';
import type { CaptureMode } from '../server/sandbox/types.js';

export const MERCHANT_ID = '701001';
export const ACCOUNT_ID = '701001010';
/** Shared by the runner's children (inherited environment), fresh for every run. */
const RUN_SECRET = process.env.CHECKOUT_BENCH_SECRET ?? randomUUID();
export const SIGN_KEY = `bench-sign-key-${RUN_SECRET}`;
const TOKEN_SECRET = `bench-token-secret-${RUN_SECRET}`;

export const ordersFile = (dir: string): string => join(dir, 'orders.sqlite');
const sandboxFile = (dir: string): string => join(dir, 'sandbox.sqlite');

/** The sandbox over the ledger file in `dir` (created when missing), not listening yet. */
export function openSandbox(dir: string, captureMode: CaptureMode = 'auto'): { sandbox: Sandbox; ledger: LedgerStore } {
  // The gateway's ledger lives in a file, as a real gateway's data lives outside the shop's
  // process: only SQLite's page cache counts against the server's memory.
  const sandbox = createSandbox({
    accounts: [{ merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY, captureMode }],
    sqlitePath: sandboxFile(dir),
    env: {},
  });
  const { ledger } = sandbox;
  if (!(ledger instanceof LedgerStore)) throw new Error('the sandbox ledger has no write side');
  return { sandbox, ledger };
}

/** The kit's options every process of a run shares (same secrets, same mount path). */
export function kitOptions(publicUrl: string, gatewayUrl: string): Omit<CheckoutKitOptions, 'store'> {
  return {
    gateway: { baseUrl: gatewayUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY },
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
}

export interface Fixture {
  kit: CheckoutKit;
  /** The in-process sandbox and its listener (null when the gateway is another process). */
  inProcess: { sandbox: Sandbox; gateway: SandboxListener } | null;
  /** Origin of the shop, e.g. http://127.0.0.1:40123 (the kit is mounted at /checkout). */
  shopUrl: string;
  /** A read-only connection to the kit's orders, for counting them. */
  db: Database.Database;
  /** Requests answered (or abandoned by the client) so far. */
  handled(): number;
  /** Resolves once no request is being handled (the load generator may stop mid-request). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}`);
    });
  });
}

export async function startFixture(options: FixtureOptions): Promise<Fixture> {
  let inProcess: Fixture['inProcess'] = null;
  if (options.gatewayUrl === null) {
    const { sandbox } = openSandbox(options.dir, options.captureMode);
    inProcess = { sandbox, gateway: await sandbox.listen(0) };
  }
  const gatewayUrl = inProcess?.gateway.baseUrl ?? options.gatewayUrl ?? '';

  // The store opens its file itself, with its defaults, as in a shop; `db` only counts states.
  const store = createSqliteStore({ path: ordersFile(options.dir) });
  const db = new Database(ordersFile(options.dir), { readonly: true });
  const app = express();
  // Counts requests still being handled, so the orders are counted only once every one is done;
  // outside Express, so the kit's routes pay for no extra middleware the baseline has not.
  let inFlight = 0;
  let handled = 0;
  const waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    inFlight++;
    res.once('close', () => {
      handled++;
      if (--inFlight === 0) for (const wake of waiters.splice(0)) wake();
    });
    app(req, res);
  });
  // Keep-alive longer than the load generator's idle gaps, as a proxy in front of a shop would.
  server.keepAliveTimeout = 30_000;
  const shopUrl = await listen(server);
  const kit = createCheckoutKit({
    ...kitOptions(`${shopUrl}/checkout`, gatewayUrl),
    store,
    confirmNotifications: options.confirmNotifications ?? true,
  });
  app.use('/checkout', kit.router);

  return {
    kit,
    inProcess,
    shopUrl,
    db,
    handled: () => handled,
    idle() {
      if (inFlight === 0) return Promise.resolve();
      return new Promise((resolve) => {
        waiters.push(resolve);
      });
    },
    async close() {
      await kit.close();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      });
      await inProcess?.gateway.close();
      await inProcess?.sandbox.close();
      // The kit closes only a store it created: this one (its checkpoint thread, its file) is ours.
      await store.close();
      db.close();
    },
  };
}
