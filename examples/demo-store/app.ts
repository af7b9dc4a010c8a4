/**
 * The demo store: a small tea shop that takes payments through the checkout kit against the
 * sandbox gateway running in the same process. It uses the package only through its public
 * exports, exactly as a merchant's shop would. `createDemoStore` builds everything but never
 * listens for shoppers; `start.ts` (what `npm start` runs) does.
 */
import { join } from 'node:path';
import type express from 'express';
import {
  createAdminRouter,
  createCheckoutKit,
  createSandbox,
  createSqliteAdminStore,
  createSqliteStore,
  silentLogger,
  SANDBOX_DEFAULT_ACCOUNT_ID,
  SANDBOX_DEFAULT_MERCHANT_ID,
  SANDBOX_DEFAULT_SIGN_KEY,
  type AdminRouter,
  type CheckoutKit,
  type Logger,
  type Sandbox,
  type SandboxListener,
  type SignInRateLimitOptions,
} from '../../server/index.js';
import { createSignedCookies } from './cookies.js';
import { ADMIN_PATH } from './routes/context.js';
import { deriveSecret, loadOrCreateSecret } from './secret.js';
import { renderPayPage } from './routes/checkout.js';
import { createShopApp } from './shop-app.js';
import { createRenderer } from './views.js';

export interface DemoStoreOptions {
  /** Where shoppers reach the store, e.g. `http://localhost:3000` (the kit's URLs are built from it). */
  publicUrl: string;
  /** SQLite files and the store's secret live here. Default `data`. */
  dataDir?: string;
  /** Port of the in-process sandbox gateway (0: any free port). Default 4000. */
  sandboxPort?: number;
  /** Interface the sandbox listens on. Default 127.0.0.1. */
  sandboxHost?: string;
  /** `manual` keeps approved card payments authorised until staff capture them. Default `auto`. */
  captureMode?: 'auto' | 'manual';
  /** Multiplies the sandbox's notification retry gaps (tests make them short). Default 1. */
  notifyTimeScale?: number;
  /**
   * The admin's sign-in (the kit's `signIn`). Default user `staff`, password from
   * DEMO_ADMIN_PASSWORD or `demo`; the kit's default throttling and 8-hour sessions.
   */
  admin?: { user?: string; password?: string; rateLimit?: SignInRateLimitOptions; sessionTtlMs?: number };
  /** The sandbox account the kit uses. Default: GATEWAY_* from the environment, else the sandbox defaults. */
  gateway?: { merchantId?: string; accountId?: string; signKey?: string };
  logger?: Logger;
  /** Run the kit's background sweeper (default true). */
  sweeper?: boolean;
  /** Where defaults are read from. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /**
   * The Express app to build the shop on (a new one by default). startDemoStore makes it first, so
   * its server (`createAppServer`) creates every request on the app's prototypes.
   */
  app?: express.Express;
}

export interface DemoStore {
  /** The shop: mount it on a server listening at `publicUrl`. */
  app: express.Express;
  kit: CheckoutKit;
  sandbox: Sandbox;
  /** The listening sandbox gateway (`baseUrl`, `port`). */
  gateway: SandboxListener;
  admin: AdminRouter;
  /** The demo admin sign-in in use. */
  adminLogin: { user: string; password: string };
  close(): Promise<void>;
}

export async function createDemoStore(options: DemoStoreOptions): Promise<DemoStore> {
  const env = options.env ?? process.env;
  const dataDir = options.dataDir ?? 'data';
  const logger = options.logger ?? silentLogger;
  const account = {
    merchantId: options.gateway?.merchantId ?? (env.GATEWAY_MERCHANT_ID || SANDBOX_DEFAULT_MERCHANT_ID),
    accountId: options.gateway?.accountId ?? (env.GATEWAY_ACCOUNT_ID || SANDBOX_DEFAULT_ACCOUNT_ID),
    signKey: options.gateway?.signKey ?? (env.GATEWAY_SIGN_KEY || SANDBOX_DEFAULT_SIGN_KEY),
  };
  const adminLogin = {
    user: options.admin?.user ?? 'staff',
    password: options.admin?.password ?? (env.DEMO_ADMIN_PASSWORD || 'demo'),
  };

  // First: creates `dataDir` too, which the sandbox's SQLite file needs.
  const secret = loadOrCreateSecret(dataDir);
  const sandbox = createSandbox({
    accounts: [{ ...account, captureMode: options.captureMode ?? 'auto' }],
    sqlitePath: join(dataDir, 'sandbox.sqlite'),
    notifyTimeScale: options.notifyTimeScale ?? 1,
    logger,
  });
  const gateway = await sandbox.listen(options.sandboxPort ?? 4000, options.sandboxHost ?? '127.0.0.1');
  try {
    return assemble(options, { sandbox, gateway, secret, account, adminLogin, dataDir, logger });
  } catch (err) {
    await sandbox.close();
    throw err;
  }
}

interface Parts {
  sandbox: Sandbox;
  gateway: SandboxListener;
  secret: string;
  account: { merchantId: string; accountId: string; signKey: string };
  adminLogin: { user: string; password: string };
  dataDir: string;
  logger: Logger;
}

function assemble(options: DemoStoreOptions, parts: Parts): DemoStore {
  const { sandbox, gateway, secret, account, adminLogin, dataDir, logger } = parts;
  const publicUrl = options.publicUrl.replace(/\/+$/, '');
  // One admin store for the kit (payout notifications, unmatched notifications) and the admin.
  const adminStore = createSqliteAdminStore({ path: join(dataDir, 'admin.sqlite') });
  const render = createRenderer();
  const kit = createCheckoutKit({
    gateway: { baseUrl: gateway.baseUrl, ...account },
    publicUrl: `${publicUrl}/checkout`,
    tokenSecret: deriveSecret(secret, 'url-tokens'),
    website: new URL(publicUrl).host,
    shopUrl: `${publicUrl}/`,
    // The kit draws its pay page (and a form sent back with errors) in the shop's layout.
    payPage: (_req, res, page) => {
      renderPayPage(render, `${publicUrl}/checkout`, res, page);
    },
    store: createSqliteStore({ path: join(dataDir, 'checkout.sqlite'), logger }),
    logger,
    adminStore,
    sweeper: { enabled: options.sweeper ?? true, intervalMs: 15_000, stuckAfterMs: 60_000 },
    hooks: {
      onPaid: (order) => {
        logger.info({ orderNo: order.orderNo, amount: order.amount, currency: order.currency }, 'demo: order paid, ready to ship');
      },
      onAttention: (order, reason) => {
        logger.warn({ orderNo: order.orderNo, reason }, 'demo: order needs attention');
      },
      onDispute: (order, info) => {
        logger.warn({ orderNo: order.orderNo, reason: info.reason }, 'demo: payment disputed');
      },
      onPayoutChanged: (payout, change) => {
        logger.info({ requestId: payout.requestId, from: change.from, to: change.to }, 'demo: payout status changed');
      },
    },
  });

  const cookies = createSignedCookies(deriveSecret(secret, 'cookies'));
  // The kit's staff sign-in: the password is hashed into admin.sqlite, sessions live there too.
  const admin = createAdminRouter({
    kit,
    signIn: {
      staff: [{ id: adminLogin.user, name: `${adminLogin.user} (demo)`, password: adminLogin.password }],
      ...(options.admin?.rateLimit === undefined ? {} : { rateLimit: options.admin.rateLimit }),
      ...(options.admin?.sessionTtlMs === undefined ? {} : { sessionTtlMs: options.admin.sessionTtlMs }),
      note: `Demo sign-in: user ${adminLogin.user}, password demo (or the DEMO_ADMIN_PASSWORD you set).`,
    },
    csrfSecret: deriveSecret(secret, 'admin-csrf'),
    adminStore,
    mountPath: ADMIN_PATH,
    logger,
  });
  const app = createShopApp({ kit, cookies, render, logger, gatewayUrl: gateway.baseUrl }, admin, options.app);

  let closed: Promise<void> | null = null;
  return {
    app,
    kit,
    sandbox,
    gateway,
    admin,
    adminLogin,
    close() {
      closed ??= (async () => {
        await admin.idle();
        await kit.close();
        await kit.store.close?.();
        await adminStore.close?.();
        await sandbox.close();
      })();
      return closed;
    },
  };
}
