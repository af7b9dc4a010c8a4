/**
 * A shop with the checkout kit mounted, the sandbox gateway, both on real ports, and the tests'
 * browser (test/helpers/browser.ts) that walks the pages as a shopper would.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { type RequestHandler } from 'express';
import { createCheckoutKit, type CheckoutKit } from '../../../server/kit.js';
import type { CheckoutKitOptions } from '../../../server/checkout/options-types.js';
import type { CheckoutHooks as OrderHooks } from '../../../server/checkout/options-types.js';
import type { Logger } from '../../../server/logging.js';
import type { Order } from '../../../server/orders/types.js';
import { createSandbox, type Sandbox, type SandboxListener } from '../../../server/sandbox/index.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';

export const MERCHANT_ID = '701001';
export const ACCOUNT_ID = '701001010';
export const SIGN_KEY = `journey-sign-key-${randomUUID()}`;
export const TOKEN_SECRET = `journey-token-secret-${randomUUID()}`;

export interface HookCall {
  hook: string;
  orderNo: string;
  from?: string;
  to?: string;
}

export interface Harness {
  sandbox: Sandbox;
  gateway: SandboxListener;
  shopUrl: string;
  kit: CheckoutKit;
  hookCalls: HookCall[];
  /** Every line the kit and the sandbox logged, as JSON. */
  logs: string[];
  hookCount(hook: string, orderNo: string): number;
  /** The stored order with this number; throws when there is none. */
  orderOf(orderNo: string): Promise<Order>;
  /** Posts to the sandbox's control API (`/_sandbox{path}`), expects 200 and returns its JSON. */
  control(path: string, body?: Record<string, string>): Promise<unknown>;
  /** Middleware the shop runs before the kit's router (body parsers…); none by default. */
  setShopMiddleware(middleware: RequestHandler | null): void;
  close(): Promise<void>;
}

const HOOK_NAMES = [
  'onTransition', 'onPaid', 'onAuthorized', 'onFailed', 'onCancelled', 'onExpired', 'onRefunded',
  'onChargeback', 'onDispute', 'onInReview', 'onRequiresAction', 'onAttention', 'onPayoutChanged',
] as const;

function capturingLogger(lines: string[]): Logger {
  const write = (level: string) => (obj: Record<string, unknown>, msg?: string): void => {
    lines.push(JSON.stringify({ level, msg, ...obj }, (_k, v: unknown) => (v instanceof Error ? { name: v.name, message: v.message } : v)));
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

export async function startHarness(kitOptions: Partial<CheckoutKitOptions> = {}): Promise<Harness> {
  const logs: string[] = [];
  const hookCalls: HookCall[] = [];
  const sandbox = createSandbox({
    accounts: [{ merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY }],
    // The whole 36-hour retry schedule takes about a second.
    notifyTimeScale: 0.00001,
    logger: capturingLogger(logs),
    env: {},
  });
  const gateway = await sandbox.listen(0);

  const app = express();
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const shopUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;

  const hooks: OrderHooks = {};
  for (const name of HOOK_NAMES) {
    (hooks as Record<string, unknown>)[name] = (order: { orderNo?: string; requestId?: string }, info?: { from?: string; to?: string }) => {
      hookCalls.push({ hook: name, orderNo: order.orderNo ?? order.requestId ?? '', from: typeof info === 'object' ? info.from : undefined, to: typeof info === 'object' ? info.to : undefined });
    };
  }
  // Journeys run on the embedded default adapter, a real SQLite file, unless a test passes a store.
  const dir = mkdtempSync(join(tmpdir(), 'journeys-'));
  const sqlite = kitOptions.store === undefined ? createSqliteStore({ path: join(dir, 'orders.sqlite') }) : null;
  const kit = createCheckoutKit({
    ...(sqlite === null ? {} : { store: sqlite }),
    gateway: { baseUrl: gateway.baseUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY, timeoutMs: 2000 },
    publicUrl: `${shopUrl}/checkout`,
    tokenSecret: TOKEN_SECRET,
    website: 'shop.test',
    hooks,
    logger: capturingLogger(logs),
    rateLimit: { limit: 1000 },
    sweeper: { enabled: false, stuckAfterMs: 1, expireAfterMs: 10 * 60 * 1000 },
    ...kitOptions,
  });
  let shopMiddleware: RequestHandler | null = null;
  app.use((req, res, next) => {
    if (shopMiddleware === null) next();
    else shopMiddleware(req, res, next);
  });
  app.use('/checkout', kit.router);
  // Operations endpoints, as a shop would mount them on an internal port.
  app.use('/_ops', kit.metricsRouter, kit.healthRouter);

  return {
    sandbox,
    gateway,
    shopUrl,
    kit,
    hookCalls,
    logs,
    hookCount: (hook, orderNo) => hookCalls.filter((c) => c.hook === hook && c.orderNo === orderNo).length,
    async orderOf(orderNo) {
      const order = await kit.store.getByOrderNo(orderNo);
      if (order === null) throw new Error(`no order ${orderNo}`);
      return order;
    },
    async control(path, body = {}) {
      const res = await fetch(`${gateway.baseUrl}/_sandbox${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(body).toString(),
      });
      if (res.status !== 200) throw new Error(`sandbox control ${path} answered ${String(res.status)}: ${await res.text()}`);
      return res.json();
    },
    setShopMiddleware(middleware) {
      shopMiddleware = middleware;
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
      await sqlite?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function uniqueOrderNo(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 13)}`;
}

/** A payment of 2 × 12.50 USD. */
export function paymentInput(orderNo: string): Parameters<CheckoutKit['createPayment']>[0] {
  return {
    orderNo,
    amount: 2500,
    currency: 'USD',
    items: [{ name: 'Tea pot', sku: 'TP-1', unitPrice: 1250, quantity: 2 }],
    shopper: { id: 'shopper-1', email: 'shopper@example.test' },
    billing: { country: 'NL', city: 'Utrecht', address: 'Oudegracht 1', postalCode: '3511AA' },
  };
}

// The browser the journeys walk the pages with (shared with the reliability scenarios).
export { Browser, onlyForm, parseForms, payForm, type Form, type Page } from '../../helpers/browser.js';
import { Browser, onlyForm, payForm, type Page } from '../../helpers/browser.js';

export const CARD = {
  approve: '4242424242424242',
  challenge: '4000000000003220',
  decline: '4000000000000002',
} as const;

export function cardFields(card: string): Record<string, string> {
  return { card, expiration_month: '12', expiration_year: String(new Date().getFullYear() + 3), security_code: '737', first_name: 'Ada', last_name: 'Lovelace' };
}

/**
 * Pays a new order with the challenge card and fails the sandbox's 3-D Secure challenge, as a
 * shopper would; returns the result page and the browser, once the sandbox's notifications are in.
 */
export async function failedChallenge(h: Harness, orderNo: string): Promise<{ browser: Browser; result: Page }> {
  const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
  const browser = new Browser();
  const page = await browser.get(payUrl);
  const toIssuer = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.challenge));
  const challenge = await browser.submit(toIssuer, onlyForm(toIssuer));
  const back = await browser.submit(challenge, onlyForm(challenge), {}, { name: 'decision', value: 'fail' });
  const result = await browser.submit(back, onlyForm(back));
  await h.sandbox.notifier.flush();
  return { browser, result };
}
