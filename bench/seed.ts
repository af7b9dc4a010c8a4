/**
 * Seeding for the benchmarks (run by bench/seeder.ts, never in the server under test): orders
 * in the kit's SQLite store, matching transactions in the sandbox's ledger (written through its
 * own LedgerStore, so records have exactly the shape the endpoints write), and the request each
 * load-generator call sends: signed notification bodies and pay-form posts carrying a valid
 * CSRF cookie and field.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { join } from 'node:path';
import type { Request, Response } from 'express';
import { payCsrf } from '../server/checkout/pay/form.js';
import { toWireAmount } from '../server/gateway/money.js';
import { uuidV7 } from '../server/uuid-v7.js';
import { signMessage } from '../server/gateway/signing.js';
import { setStatus, STATUS } from '../server/sandbox/payments.js';
import { newTransaction } from '../server/sandbox/transactions.js';
import type { SandboxTransaction } from '../server/sandbox/types.js';
import Database from 'better-sqlite3';
import { createCheckoutKit, type CheckoutKit } from '../server/kit.js';
import { createSqliteStore } from '../server/orders/stores/sqlite.js';
import type { LedgerStore } from '../server/sandbox/ledger.js';
import { ACCOUNT_ID, kitOptions, MERCHANT_ID, ordersFile, SIGN_KEY } from './fixture.js';
import { openSandbox } from './open-sandbox.js';
import type { LoadRequest } from './protocol.js';

export const AMOUNT = 2500;
export const CURRENCY = 'USD';
const MASKED_CARD = '424242******4242';
/** Old enough for the sweeper's default stuckAfterMs (2 min), young enough not to expire (30 min). */
const STUCK_SINCE_MS = 10 * 60 * 1000;

/** What the seeder writes to: the kit (its SQLite store) and the sandbox's ledger. */
export interface SeedTarget {
  kit: CheckoutKit;
  ledger: LedgerStore;
  /** The kit store's SQLite database, or null when the store is PostgreSQL. */
  db: Database.Database | null;
}

/** Runs `fn` as one SQLite transaction of the kit's store (nothing else uses it meanwhile). */
async function inOneTransaction(target: SeedTarget, fn: () => Promise<void>): Promise<void> {
  // PostgreSQL: each write commits on its own (slower seeding, nothing measured depends on it).
  if (target.db === null) return fn();
  target.db.exec('BEGIN');
  try {
    await fn();
    target.db.exec('COMMIT');
  } catch (error) {
    target.db.exec('ROLLBACK');
    throw error;
  }
}

export const shopperData = {
  items: [{ name: 'Tea pot', sku: 'TP-1', unitPrice: 1250, quantity: 2 }],
  shopper: { id: 'shopper-1', email: 'shopper@example.test' },
  website: 'shop.example',
};

export const orderNoOf = (prefix: string, i: number): string => `${prefix}-${String(i).padStart(7, '0')}`;
const CHUNK = 5000;
let transactionCount = 0;

/**
 * `count` orders already sent to the gateway and waiting for its answer (`pending`), order
 * numbers `orderNoOf(prefix, i)`, each last touched a millisecond after the previous one.
 */
export async function seedPendingOrders(target: SeedTarget, prefix: string, count: number): Promise<void> {
  const oldest = Date.now() - STUCK_SINCE_MS - count;
  await inOneTransaction(target, async () => {
    for (let i = 0; i < count; i++) {
      const createdAt = new Date(oldest + i);
      await target.kit.store.create({
        // As the kit's createPayment names orders.
        id: uuidV7(createdAt.getTime()),
        orderNo: orderNoOf(prefix, i),
        amount: AMOUNT,
        currency: CURRENCY,
        state: 'pending',
        method: 'card',
        data: { ...shopperData, submittedAt: createdAt.toISOString() },
        createdAt,
      });
    }
  });
}

/**
 * One sandbox transaction per order number `orderNoOf(prefix, i)`, captured (auto capture) or
 * authorised (manual capture), written in chunks; `each` sees every transaction once.
 */
export function seedGatewayTransactions(
  target: SeedTarget,
  prefix: string,
  count: number,
  state: 'captured' | 'authorized',
  each: (tx: SandboxTransaction) => void = () => undefined,
): void {
  const account = { merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY, captureMode: state === 'captured' ? 'auto' as const : 'manual' as const };
  for (let from = 0; from < count; from += CHUNK) {
    target.ledger.database.atomically(() => {
      for (let i = from; i < Math.min(count, from + CHUNK); i++) {
        const tx = newTransaction(account, { orderNo: orderNoOf(prefix, i), kind: 'card', paymentMethod: 'CARD', amount: AMOUNT, currency: CURRENCY, details: { website: 'shop.example' } });
        // The sandbox's ids carry 6 random characters per second: enough for shoppers, not for
        // 100,000 transactions seeded within one second.
        tx.transactionId = `${tx.transactionId.slice(0, 17)}B${String(++transactionCount).padStart(9, '0')}`;
        tx.card = MASKED_CARD;
        setStatus(tx, state === 'captured' ? STATUS.captured : STATUS.authorized, state);
        tx.capturedAmount = state === 'captured' ? AMOUNT : 0;
        target.ledger.saveTransaction(tx);
        each(tx);
      }
    });
  }
}

/** Writes a JSON array of requests to `file` a few at a time, so no list is held in memory. */
export class RequestFile {
  readonly file: string;
  #buffer: string[] = [];
  #written = 0;

  constructor(file: string) {
    this.file = file;
    writeFileSync(file, '[');
  }

  add(request: LoadRequest): void {
    this.#buffer.push(JSON.stringify(request));
    if (this.#buffer.length >= 1000) this.#flush();
  }

  #flush(): void {
    if (this.#buffer.length === 0) return;
    appendFileSync(this.file, (this.#written > 0 ? ',' : '') + this.#buffer.join(','));
    this.#written += this.#buffer.length;
    this.#buffer = [];
  }

  close(): number {
    this.#flush();
    appendFileSync(this.file, ']');
    return this.#written;
  }
}

export type NotifiedTransaction = Pick<
  SandboxTransaction,
  'merchantId' | 'accountId' | 'orderNo' | 'transactionId' | 'amount' | 'currency' | 'orderStatus' | 'resultInfo' | 'paymentStatus' | 'card'
>;

/** The sandbox's payment notification for a transaction, signed, form-encoded. */
export function notificationRequest(tx: NotifiedTransaction): LoadRequest {
  const fields: Record<string, string> = {
    merchant_id: tx.merchantId,
    account_id: tx.accountId,
    order_no: tx.orderNo,
    transaction_id: tx.transactionId,
    amount: toWireAmount(tx.amount, tx.currency),
    currency: tx.currency,
    order_status: tx.orderStatus,
    result_info: tx.resultInfo,
    payment_status: tx.paymentStatus,
    webhooks_type: 'payment',
    card: tx.card,
  };
  fields.encryption_data = signMessage('notification', fields, SIGN_KEY);
  return {
    method: 'POST',
    path: '/checkout/notify',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  };
}

/** What /assets/device.js would have filled in. */
export const DEVICE_FIELDS: Record<string, string> = {
  os: 'Linux',
  browser: 'Chrome 126',
  browser_lang: 'en-GB',
  time_zone: '-60',
  resolution: '1920x1080',
  color_depth: '24',
  cookie_old: '',
  cookie_new: 'c0ffee00c0ffee00c0ffee00',
  device_fingerprint: 'a'.repeat(64),
  session_id: 's3ss10n1d',
  challenge_window_size: '05',
};

/** The billing address of every seeded order. */
export const BILLING = { country: 'NL', city: 'Utrecht', address: 'Oudegracht 1', postalCode: '3511AA' };

/** The card fields a shopper types (the sandbox's approved test card). */
export const cardFields = (expiryYear: string): Record<string, string> => ({
  card: '4242424242424242', expiration_month: '12', expiration_year: expiryYear, security_code: '737', first_name: 'Ada', last_name: 'Lovelace',
});

export const BROWSER_HEADERS = {
  'content-type': 'application/x-www-form-urlencoded',
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  'accept-language': 'en-GB,en;q=0.9',
  accept: 'text/html',
};

/**
 * `count` orders created with `kit.createPayment`, each with the pay-form post a browser would
 * send: the CSRF cookie and field the pay page issues, device data, and the method's fields.
 */
export async function seedPayRequests(target: SeedTarget, prefix: string, count: number, method: 'card' | 'hosted', out: RequestFile): Promise<void> {
  const csrf = payCsrf(target.kit.context);
  const expiryYear = String(new Date().getFullYear() + 3);
  await inOneTransaction(target, async () => {
    for (let i = 0; i < count; i++) {
      const { order, payUrl } = await target.kit.createPayment({
        orderNo: orderNoOf(prefix, i),
        amount: AMOUNT,
        currency: CURRENCY,
        items: shopperData.items,
        shopper: shopperData.shopper,
        billing: BILLING,
      });
      let cookie = '';
      const fakeRes = { cookie: (_name: string, value: string) => { cookie = value; } } as unknown as Response;
      // A request without a cookie: the pay page's CSRF module draws a fresh value, as for a new browser.
      const field = csrf.issue(new IncomingMessage(new Socket()) as Request, fakeRes, order.id);
      const form: Record<string, string> = { method, _csrf: field, ...DEVICE_FIELDS };
      if (method === 'card') {
        Object.assign(form, cardFields(expiryYear));
      }
      out.add({
        method: 'POST',
        path: new URL(payUrl).pathname,
        headers: { ...BROWSER_HEADERS, cookie: `${csrf.cookieName}=${cookie}` },
        body: new URLSearchParams(form).toString(),
      });
    }
  });
}

/**
 * Seeds `dir` as the in-process timers need it (the kit's orders in SQLite, the sandbox's ledger):
 * `fill` writes the orders and adds the requests to send, which are returned.
 */
export async function seededRequests(dir: string, fill: (target: SeedTarget, out: RequestFile) => Promise<void>): Promise<LoadRequest[]> {
  const { sandbox, ledger } = openSandbox(dir);
  const db = new Database(ordersFile(dir));
  const store = createSqliteStore({ database: db });
  const kit = createCheckoutKit({ ...kitOptions('http://127.0.0.1/checkout', 'http://127.0.0.1:9'), store });
  const file = join(dir, 'requests.json');
  const out = new RequestFile(file);
  try {
    await fill({ kit, ledger, db }, out);
  } finally {
    out.close();
    await kit.close();
    await store.close();
    await sandbox.close();
    db.close();
  }
  return JSON.parse(readFileSync(file, 'utf8')) as LoadRequest[];
}
