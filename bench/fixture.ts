/**
 * One shop under test: the sandbox gateway and an Express app with the checkout kit mounted,
 * each on its own port of 127.0.0.1. The kit's orders live in a real SQLite file (WAL, the
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
  confirmNotifications?: boolean;
  captureMode?: CaptureMode;
}

export interface Fixture {
  kit: CheckoutKit;
  sandbox: Sandbox;
  gateway: SandboxListener;
  /** Origin of the shop, e.g. http://127.0.0.1:40123 (the kit is mounted at /checkout). */
  shopUrl: string;
  /** A read-only connection to the kit's orders, for counting them. */
  db: Database.Database;
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
  const { sandbox } = openSandbox(options.dir, options.captureMode);
  const gateway = await sandbox.listen(0);

  // The store opens its file itself, with its defaults, as in a shop; `db` only counts states.
  const store = createSqliteStore({ path: ordersFile(options.dir) });
  const db = new Database(ordersFile(options.dir), { readonly: true });
  const app = express();
  const server = createServer(app);
  // Keep-alive longer than the load generator's idle gaps, as a proxy in front of a shop would.
  server.keepAliveTimeout = 30_000;
  const shopUrl = await listen(server);
  const kit = createCheckoutKit({
    ...kitOptions(`${shopUrl}/checkout`, gateway.baseUrl),
    store,
    confirmNotifications: options.confirmNotifications ?? true,
  });
  // Counts requests still being handled, so the orders are counted only once every one is done.
  let inFlight = 0;
  const waiters: (() => void)[] = [];
  app.use((_req, res, next) => {
    inFlight++;
    res.once('finish', () => {
      if (--inFlight === 0) for (const wake of waiters.splice(0)) wake();
    });
    next();
  });
  app.use('/checkout', kit.router);

  return {
    kit,
    sandbox,
    gateway,
    shopUrl,
    db,
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
      await gateway.close();
      await sandbox.close();
      // The kit closes only a store it created: this one (its checkpoint thread, its file) is ours.
      await store.close();
      db.close();
    },
  };
}
