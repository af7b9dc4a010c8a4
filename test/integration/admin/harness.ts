/**
 * The admin over real HTTP: the sandbox (manual capture) on port 0, a checkout kit pointed at it
 * through a fetch that records every gateway request, and a shop app on port 0 with the admin
 * mounted at /admin behind a header-based test sign-in. Orders are created with the kit's
 * createPayment, authorised through the client and applied through the engine.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { createAdminRouter, type AdminRouter } from '../../../server/admin/index.js';
import type { AdminRouterOptions, AdminStore } from '../../../server/admin/index.js';
import { createMemoryAdminStore } from '../../../server/admin/stores/memory.js';
import { createCheckoutKit, type CheckoutKit } from '../../../server/kit.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import type { Order } from '../../../server/orders/types.js';
import { createSandbox, type Sandbox } from '../../../server/sandbox/index.js';

export const SIGN_KEY = 'sandbox-sign-key-not-secret';
export const CSRF_SECRET = 'admin-test-csrf-secret-0123456789abcdef';
export const FUTURE_YEAR = String(new Date().getUTCFullYear() + 3);
export const CARD_APPROVE = '4242424242424242';
export const CARD_REVIEW = '4000000000009235';

export interface GatewayCall {
  path: string;
  body: string;
}

export interface AdminApp {
  router: AdminRouter;
  baseUrl: string;
  close(): Promise<void>;
}

export interface AdminHarness {
  sandbox: Sandbox;
  gatewayUrl: string;
  kit: CheckoutKit;
  adminStore: AdminStore;
  /** Every request the kit's client sent to the sandbox, in order. */
  calls: GatewayCall[];
  /** The first admin app (more can be started over the same stores with `startAdmin`). */
  admin: AdminApp;
  /** `shopParsers`: the shop mounts express.urlencoded() before the admin (the admin must cope). */
  startAdmin(overrides?: Partial<AdminRouterOptions>, shopParsers?: boolean): Promise<AdminApp>;
  orderNo(prefix: string): string;
  createAuthorised(options?: { amount?: number; card?: string; prefix?: string; subscription?: boolean }): Promise<Order>;
  /** Number of gateway requests to `path` (e.g. '/v1/capture') so far. */
  count(path: string): number;
  close(): Promise<void>;
}

/** Test sign-in: the `x-staff` header names the staff member; no header, nobody. */
export function headerAuthorize(req: express.Request): { id: string; name: string } | null {
  const id = req.get('x-staff');
  return id === undefined || id === '' ? null : { id, name: `Staff ${id}` };
}

export async function startHarness(options: { adminStore?: AdminStore } = {}): Promise<AdminHarness> {
  const sandbox = createSandbox({ captureMode: 'manual', notifyTimeScale: 0.001, env: {} });
  const listener = await sandbox.listen(0);
  const calls: GatewayCall[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    calls.push({ path: new URL(url).pathname, body: typeof init?.body === 'string' ? init.body : '' });
    return fetch(input, init);
  };
  const kit = createCheckoutKit({
    gateway: { baseUrl: listener.baseUrl, merchantId: '701001', accountId: '701001010', signKey: SIGN_KEY },
    publicUrl: 'http://127.0.0.1:1/checkout',
    tokenSecret: 'checkout-test-token-secret-0123456789abcdef',
    sweeper: { enabled: false },
    fetch: recordingFetch,
    store: createMemoryStore(),
  });
  const adminStore = options.adminStore ?? createMemoryAdminStore();
  const apps: AdminApp[] = [];
  const run = randomUUID().slice(0, 8);
  let counter = 0;

  async function startAdmin(overrides: Partial<AdminRouterOptions> = {}, shopParsers = false): Promise<AdminApp> {
    const router = createAdminRouter({ kit, authorize: headerAuthorize, csrfSecret: CSRF_SECRET, adminStore, ...overrides });
    const app = express();
    if (shopParsers) app.use(express.urlencoded({ extended: false }));
    app.use('/admin', router);
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => {
        resolve(s);
      });
    });
    const { port } = server.address() as AddressInfo;
    const started: AdminApp = {
      router,
      baseUrl: `http://127.0.0.1:${port}`,
      close: async () => {
        await router.idle();
        await new Promise<void>((resolve) => {
          server.close(() => {
            resolve();
          });
          server.closeAllConnections();
        });
      },
    };
    apps.push(started);
    return started;
  }

  const orderNo = (prefix: string): string => `${prefix}-${run}-${++counter}`;

  async function createAuthorised(o: { amount?: number; card?: string; prefix?: string; subscription?: boolean } = {}): Promise<Order> {
    const amount = o.amount ?? 1000;
    const no = orderNo(o.prefix ?? 'ADM');
    const { order } = await kit.createPayment({
      orderNo: no, amount, currency: 'USD',
      items: [{ name: 'Mug', sku: 'MUG', unitPrice: amount, quantity: 1 }],
      shopper: { id: 'shopper-1', email: 'shopper@example.com' },
    });
    const result = await kit.client.payments.authorise({
      order_no: no, currency: 'USD', amount, website: 'shop.example', shopper_id: 'shopper-1',
      shopper_email: 'shopper@example.com', shopper_ip: '192.0.2.1',
      items: [{ name: 'Mug', sku: 'MUG', unitPrice: amount, quantity: 1 }],
      card: o.card ?? CARD_APPROVE, expiration_month: '01', expiration_year: FUTURE_YEAR, security_code: '100',
      ...(o.subscription === true ? { subscription: { contract_name: 'Tea club', contract_amount: amount, interval: 'month', interval_count: '1' } } : {}),
    });
    const applied = await kit.engine.apply({
      orderId: order.id, source: 'pay', outcome: result.outcome, transactionId: result.transactionId,
      amount: result.amount, currency: result.currency, maskedCard: result.maskedCard,
    });
    if (applied.order === null) throw new Error('order vanished');
    if (result.recurringId === null) return applied.order;
    // What the pay route does with a subscription: keep the recurring id on the order.
    const annotated = await kit.store.transition(order.id, applied.order.version, { data: { recurringId: result.recurringId } });
    if (!annotated.ok) throw new Error('could not annotate the order');
    return annotated.order;
  }

  const admin = await startAdmin();
  return {
    sandbox,
    gatewayUrl: listener.baseUrl,
    kit,
    adminStore,
    calls,
    admin,
    startAdmin,
    orderNo,
    createAuthorised,
    count: (path) => calls.filter((c) => c.path === path).length,
    close: async () => {
      for (const a of apps) await a.close();
      await kit.close();
      await listener.close();
      await sandbox.close();
      await adminStore.close?.();
    },
  };
}

/** A staff browser session against one admin app: pages, CSRF token and cookie, same-origin posts. */
export class StaffSession {
  private cookie = '';
  private token = '';

  constructor(private readonly app: AdminApp, readonly staffId = 'alice') {}

  get origin(): string {
    return this.app.baseUrl;
  }

  async get(path: string): Promise<request.Response> {
    const res = await request(this.app.baseUrl).get(`/admin${path}`).set('x-staff', this.staffId).set('Cookie', this.cookie);
    const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    const csrf = setCookie.find((c) => c.startsWith('admin_csrf='));
    if (csrf !== undefined) this.cookie = csrf.split(';')[0] ?? '';
    const field = /name="_csrf" value="([^"]+)"/.exec(res.text);
    if (field?.[1] !== undefined) this.token = field[1];
    return res;
  }

  /** POSTs a url-encoded form with the CSRF token of the last page read (unless overridden). */
  async post(path: string, fields: Record<string, string | string[]> = {}, headers: Record<string, string> = {}): Promise<request.Response> {
    if (this.token === '') await this.get('/');
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries({ _csrf: this.token, ...fields })) for (const one of [v].flat()) body.append(k, one);
    // An empty Origin in `headers` means "send no Origin header" (as some browsers do).
    const all: Record<string, string> = { 'x-staff': this.staffId, Cookie: this.cookie, Origin: this.app.baseUrl, ...headers };
    if (all.Origin === '') delete all.Origin;
    return request(this.app.baseUrl).post(`/admin${path}`).set(all).type('form').send(body.toString());
  }

  /** POSTs multipart/form-data (the CSV upload) with the CSRF token of the last page read. */
  async postMultipart(path: string, fields: Record<string, string>, file?: { field: string; name: string; content: string }): Promise<request.Response> {
    if (this.token === '') await this.get('/');
    let req = request(this.app.baseUrl)
      .post(`/admin${path}`)
      .set({ 'x-staff': this.staffId, Cookie: this.cookie, Origin: this.app.baseUrl })
      .field('_csrf', this.token);
    for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
    if (file !== undefined) req = req.attach(file.field, Buffer.from(file.content), { filename: file.name, contentType: 'text/csv' });
    return req;
  }

  /** Follows a 303 (relative to the app) and returns the page. */
  async follow(res: request.Response): Promise<request.Response> {
    const location: string = res.headers.location ?? '';
    return this.get(location.replace(/^\/admin/, ''));
  }
}

/** Polls the admin store until the job is done (bounded), then returns it. */
export async function waitForJob(store: AdminStore, jobId: string, timeoutMs = 20_000): Promise<NonNullable<Awaited<ReturnType<AdminStore['getJob']>>>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const job = await store.getJob(jobId);
    if (job !== null && job.status === 'done') return job;
    if (Date.now() > until) throw new Error(`job ${jobId} did not finish`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
