/**
 * A shop with the checkout kit mounted, the sandbox gateway, both on real ports, and a small
 * browser (cookies per origin, redirects, HTML forms) that walks the pages as a shopper would.
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
import type { OrderHooks } from '../../../server/orders/engine-types.js';
import type { Logger } from '../../../server/logging.js';
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
  /** Middleware the shop runs before the kit's router (body parsers…); none by default. */
  setShopMiddleware(middleware: RequestHandler | null): void;
  close(): Promise<void>;
}

const HOOK_NAMES = [
  'onTransition', 'onPaid', 'onAuthorized', 'onFailed', 'onCancelled', 'onExpired', 'onRefunded',
  'onChargeback', 'onInReview', 'onRequiresAction', 'onAttention',
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
    (hooks as Record<string, unknown>)[name] = (order: { orderNo: string }, info?: { from?: string; to?: string }) => {
      hookCalls.push({ hook: name, orderNo: order.orderNo, from: typeof info === 'object' ? info.from : undefined, to: typeof info === 'object' ? info.to : undefined });
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

  return {
    sandbox,
    gateway,
    shopUrl,
    kit,
    hookCalls,
    logs,
    hookCount: (hook, orderNo) => hookCalls.filter((c) => c.hook === hook && c.orderNo === orderNo).length,
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

// --- the browser -------------------------------------------------------------------------

export interface Page {
  url: string;
  status: number;
  html: string;
  headers: Headers;
  /** Every URL visited on the way (redirects included). */
  trail: string[];
}

export interface Form {
  method: string;
  action: string;
  fields: Record<string, string>;
  buttons: { name: string; value: string }[];
  html: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" };
export function decodeHtml(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-f]+|\w+);/gi, (m, e: string) => {
    if (ENTITIES[e] !== undefined) return ENTITIES[e];
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)));
    return m;
  });
}

function attrs(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'))?/g)) {
    const name = m[1]!.toLowerCase();
    if (name === 'input' || name === 'form' || name === 'button' || name === 'select' || name === 'option') continue;
    out[name] = decodeHtml(m[2] ?? m[3] ?? '');
  }
  return out;
}

export function parseForms(page: Page): Form[] {
  const forms: Form[] = [];
  for (const m of page.html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const formAttrs = attrs(m[1]!);
    const body = m[2]!;
    const fields: Record<string, string> = {};
    for (const input of body.matchAll(/<input\b([^>]*)>/gi)) {
      const a = attrs(input[1]!);
      if (a.name !== undefined && a.name !== '') fields[a.name] = a.value ?? '';
    }
    for (const select of body.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/gi)) {
      const a = attrs(select[1]!);
      const options = [...select[2]!.matchAll(/<option\b([^>]*)>/gi)].map((o) => attrs(o[1]!));
      const chosen = options.find((o) => 'selected' in o) ?? options[0];
      if (a.name !== undefined) fields[a.name] = chosen?.value ?? '';
    }
    const buttons = [...body.matchAll(/<button\b([^>]*)>/gi)].map((b) => attrs(b[1]!)).filter((b) => b.name !== undefined).map((b) => ({ name: b.name!, value: b.value ?? '' }));
    forms.push({ method: (formAttrs.method ?? 'get').toLowerCase(), action: new URL(formAttrs.action ?? page.url, page.url).toString(), fields, buttons, html: m[0] });
  }
  return forms;
}

export class Browser {
  readonly #jar = new Map<string, Map<string, string>>();

  #cookieHeader(url: URL): string | undefined {
    const jar = this.#jar.get(url.host);
    if (jar === undefined || jar.size === 0) return undefined;
    return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  #store(url: URL, headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq < 0) continue;
      const jar = this.#jar.get(url.host) ?? new Map<string, string>();
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      this.#jar.set(url.host, jar);
    }
  }

  async request(method: string, url: string, fields?: Record<string, string>, origin?: string): Promise<Page> {
    const trail: string[] = [];
    let current = new URL(url);
    let currentMethod = method.toUpperCase();
    let body: string | undefined = fields === undefined ? undefined : new URLSearchParams(fields).toString();
    for (let hop = 0; hop < 15; hop++) {
      trail.push(current.toString());
      const headers: Record<string, string> = { accept: 'text/html' };
      const cookie = this.#cookieHeader(current);
      if (cookie !== undefined) headers.cookie = cookie;
      if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      if (origin !== undefined && currentMethod === 'POST') headers.origin = origin;
      const res = await fetch(current, { method: currentMethod, headers, body, redirect: 'manual' });
      this.#store(current, res.headers);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location !== null) {
        await res.arrayBuffer();
        current = new URL(location, current);
        if (res.status !== 307 && res.status !== 308) {
          currentMethod = 'GET';
          body = undefined;
        }
        continue;
      }
      return { url: current.toString(), status: res.status, html: await res.text(), headers: res.headers, trail };
    }
    throw new Error(`too many redirects from ${url}`);
  }

  get(url: string): Promise<Page> {
    return this.request('GET', url);
  }

  /** Submits a form as a browser would: its fields, then `fill`, then the clicked button. */
  submit(page: Page, form: Form, fill: Record<string, string> = {}, button?: { name: string; value: string }): Promise<Page> {
    const fields = { ...form.fields, ...fill, ...(button === undefined ? {} : { [button.name]: button.value }) };
    const origin = new URL(page.url).origin;
    if (form.method === 'post') return this.request('POST', form.action, fields, origin);
    const target = new URL(form.action);
    for (const [k, v] of Object.entries(fields)) target.searchParams.set(k, v);
    return this.request('GET', target.toString());
  }
}

/** The pay page's form for `method` (card, apm or hosted). */
export function payForm(page: Page, method: string): Form {
  const form = parseForms(page).find((f) => f.fields.method === method);
  if (form === undefined) throw new Error(`no ${method} form on ${page.url} (status ${String(page.status)})`);
  return form;
}

/** The only form of an auto-submitting page. */
export function onlyForm(page: Page): Form {
  const forms = parseForms(page);
  if (forms.length !== 1) throw new Error(`expected one form on ${page.url} (status ${String(page.status)}), found ${String(forms.length)}: ${page.html.slice(0, 500)}`);
  return forms[0]!;
}

export const CARD = {
  approve: '4242424242424242',
  challenge: '4000000000003220',
  decline: '4000000000000002',
} as const;

export function cardFields(card: string): Record<string, string> {
  return { card, expiration_month: '12', expiration_year: String(new Date().getFullYear() + 3), security_code: '737', first_name: 'Ada', last_name: 'Lovelace' };
}
