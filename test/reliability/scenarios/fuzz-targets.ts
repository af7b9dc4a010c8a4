/**
 * The fuzzed routes: each target sends one generated input and says what went wrong, if
 * anything (a 5xx, a crash, a missing 4xx, a field not named, an off-site redirect, card data
 * echoed back). "Nothing changed" is checked around each target by the fuzz scenario.
 */
import fc from 'fast-check';
import { signMessage } from '../../../server/gateway/signing.js';
import { SANDBOX_OPERATIONS } from '../../../server/sandbox/index.js';
import { parsePayBody } from '../../../server/checkout/pay/schema.js';
import { parseRefundAmount } from '../../../server/admin/order-actions.js';
import type { Order } from '../../../server/orders/types.js';
import { rememberCard } from '../support/card-scan.js';
import { hostileBody, hostileString, mutatedForm, type HostileBody } from '../support/hostile.js';
import { FUTURE_YEAR } from '../support/orders.js';
import { ACCOUNT_ID, MERCHANT_ID, STAFF_HEADER, type Shop } from '../support/shop.js';

export interface Target {
  route: string;
  arb: fc.Arbitrary<unknown>;
  /** Null when the answer is right; otherwise what was wrong. */
  send(input: unknown): Promise<string | null>;
}

export interface Fixture {
  shop: Shop;
  /** A created order: pay token, CSRF cookie and field. */
  pay: { url: string; cookie: string; csrf: string };
  /** A paid order: id, number, transaction, and its return/cancel/result URLs. */
  paid: { id: string; orderNo: string; transactionId: string; amount: number; returnUrl: string; cancelUrl: string; resultUrl: string };
  admin: { cookie: string; csrf: string };
  paidOrder: Order;
}

interface Answer {
  status: number;
  text: string;
  location: string | null;
  headers: Headers;
}

export async function send(url: string, init: { method?: string; body?: string; contentType?: string | null; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.contentType !== undefined && init.contentType !== null) headers['content-type'] = init.contentType;
  const res = await fetch(url, { method: init.method ?? 'POST', headers, body: init.body, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
  return { status: res.status, text: await res.text(), location: res.headers.get('location'), headers: res.headers };
}

/** encodeURIComponent that survives lone surrogates (they become U+FFFD, as a browser would send). */
function encode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'));
  }
}

const is4xx = (a: Answer): boolean => a.status >= 400 && a.status < 500;
const describe = (a: Answer, input: string): string => `${String(a.status)} for ${input.slice(0, 120)}`;

function bodyTarget(route: string, url: () => string, accepted: (a: Answer) => boolean, headers: () => Record<string, string> = () => ({})): Target {
  return {
    route: `${route} (hostile bodies)`,
    arb: hostileBody,
    async send(input) {
      const b = input as HostileBody;
      const a = await send(url(), { body: b.body, contentType: b.contentType, headers: headers() });
      return a.status >= 500 || !accepted(a) ? describe(a, b.label) : null;
    },
  };
}

/** Pay: a valid card form with one field hostile (never a valid form), CSRF and all. */
function payTarget(fx: Fixture): Target {
  const base = {
    _csrf: fx.pay.csrf, method: 'card', card: '4242424242424242', expiration_month: '12', expiration_year: FUTURE_YEAR, security_code: '737', first_name: 'Ada', last_name: 'Lovelace',
  };
  return {
    route: 'POST /checkout/pay/:token',
    arb: mutatedForm(base, ['method', 'card', 'expiration_month', 'expiration_year', 'security_code', 'first_name', 'last_name']).filter(({ form }) => !parsePayBody(form).ok),
    async send(input) {
      const { field, form, raw } = input as { field: string; form: Record<string, string>; raw: string };
      if (field === 'card') rememberCard(form.card ?? '');
      const a = await send(fx.pay.url, { body: raw, contentType: 'application/x-www-form-urlencoded', headers: { cookie: fx.pay.cookie, origin: fx.shop.url } });
      // Over the pay form's 16 KB limit the answer is 413 before any field is read.
      if (Buffer.byteLength(raw) > 16 * 1024) return a.status === 413 ? null : describe(a, `an oversized ${field}`);
      if (a.status !== 400) return describe(a, `${field}=${JSON.stringify(form[field] ?? null)}`);
      const named = field === 'method' ? /error-summary/.test(a.text) : a.text.includes(`id="${field}-error"`) || (field.startsWith('expiration') && a.text.includes('expiration_'));
      if (!named) return `400 without naming ${field}`;
      const card = form.card ?? '';
      if (field === 'card' && /\d{12,}/.test(card.replace(/\D/g, '')) && a.text.includes(card)) return 'card number echoed on the page';
      if (field === 'security_code' && /^\d{3,4}$/.test(form.security_code ?? '') && a.text.includes(`value="${form.security_code ?? ''}"`)) return 'CVV echoed on the page';
      return null;
    },
  };
}

/** Device data: hostile browser fields on a valid card payment of a fresh order: dropped, never a 5xx. */
function deviceTarget(fx: Fixture): Target {
  const fields = ['os', 'browser', 'browser_lang', 'time_zone', 'resolution', 'color_depth', 'cookie_new', 'cookie_old', 'device_fingerprint', 'session_id', 'challenge_window_size'];
  let n = 0;
  return {
    route: 'POST /checkout/pay/:token (device data)',
    arb: fc.dictionary(fc.constantFrom(...fields), hostileString, { minKeys: 1, maxKeys: 6 }),
    async send(input) {
      const device = input as Record<string, string>;
      const { payUrl } = await fx.shop.createOrder(`FUZZ-DEV-${Date.now().toString(36)}-${String(n++)}`, 1234);
      const page = await fetch(payUrl);
      const cookie = (page.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
      const form = { ...device, _csrf: csrf, method: 'card', card: '4242424242424242', expiration_month: '12', expiration_year: FUTURE_YEAR, security_code: '737', first_name: 'Ada', last_name: 'Lovelace' };
      const body = new URLSearchParams(form).toString();
      const a = await send(payUrl, { body, contentType: 'application/x-www-form-urlencoded', headers: { cookie, origin: fx.shop.url } });
      // Over the pay form's 16 KB limit the answer is 413, and nothing is paid.
      if (Buffer.byteLength(body) > 16 * 1024) return a.status === 413 ? null : describe(a, 'an oversized form');
      return a.status === 303 && (a.location ?? '').startsWith(`${fx.shop.url}/checkout/result/`) ? null : describe(a, JSON.stringify(device));
    },
  };
}

const hostileToken = (valid: string): fc.Arbitrary<string> =>
  fc.oneof(
    hostileString.map((s) => encode(s) || 'x'),
    fc.integer({ min: 0, max: valid.length - 1 }).map((i) => `${valid.slice(0, i)}${valid[i] === 'A' ? 'B' : 'A'}${valid.slice(i + 1)}`),
    fc.constantFrom('%2F%2Fevil.example', '..%2F..%2Fadmin', `${valid}.x`, valid.split('.')[0] ?? 'x', `${valid}%00`),
  );

/** Return and cancel: forged tokens change nothing and never redirect anywhere but the shop. */
function returnTarget(fx: Fixture, purpose: 'return' | 'cancel', method: 'GET' | 'POST'): Target {
  const valid = (purpose === 'return' ? fx.paid.returnUrl : fx.paid.cancelUrl).split('/').pop()!;
  return {
    route: `${method} /checkout/${purpose}/:token`,
    arb: fc.record({ token: fc.oneof(hostileToken(valid), fc.constant(valid)), body: hostileBody }),
    async send(input) {
      const { token, body } = input as { token: string; body: HostileBody };
      const a = await send(`${fx.shop.url}/checkout/${purpose}/${token}`, method === 'GET' ? { method } : { method, body: body.body, contentType: body.contentType });
      if (a.status >= 500) return describe(a, token);
      if (a.location !== null && !a.location.startsWith(`${fx.shop.url}/checkout/result/`)) return `redirected off the result page: ${a.location}`;
      if (token === valid) return a.status === 303 ? null : describe(a, 'the valid token');
      // A URL too long for the HTTP server is refused before the kit sees it (414/431).
      return a.status === 404 || (token.length > 8000 && is4xx(a)) ? null : describe(a, token);
    },
  };
}

function resultTarget(fx: Fixture): Target {
  const valid = fx.paid.resultUrl.split('/').pop()!;
  return {
    route: 'GET /checkout/result/:token',
    arb: hostileToken(valid),
    async send(input) {
      const token = input as string;
      const a = await send(`${fx.shop.url}/checkout/result/${token}`, { method: 'GET' });
      return a.status === 404 || (token.length > 8000 && is4xx(a)) ? null : describe(a, token);
    },
  };
}

/** Notify: correctly signed notifications with one hostile field, for the paid order. */
function notifyTarget(fx: Fixture): Target {
  const base: Record<string, string> = {
    merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, order_no: fx.paid.orderNo, transaction_id: fx.paid.transactionId, amount: (fx.paid.amount / 100).toFixed(2),
    currency: 'USD', order_status: '1', payment_status: '3000', result_info: '0000:Success', webhooks_type: 'payment', card: '424242******4242',
  };
  return {
    route: 'POST /checkout/notify (signed, one field hostile)',
    arb: mutatedForm(base, Object.keys(base)),
    async send(input) {
      const { form } = input as { form: Record<string, string> };
      const signed = { ...form, encryption_data: signMessage('notification', form, fx.shop.signKey) };
      const a = await send(`${fx.shop.url}/checkout/notify`, { body: new URLSearchParams(signed).toString(), contentType: 'application/x-www-form-urlencoded' });
      if (a.status >= 500 && a.status !== 503) return describe(a, JSON.stringify(form).slice(0, 200));
      if (is4xx(a) && !/^(invalid \S+|invalid signature|not this merchant account|unknown order|unreadable body|rejected)/.test(a.text)) return `4xx without a reason: ${a.text.slice(0, 80)}`;
      return null;
    },
  };
}

/** Every admin action with a hostile form, as signed-in staff with a valid CSRF token. */
function adminTargets(fx: Fixture): Target[] {
  const headers = (): Record<string, string> => ({ [STAFF_HEADER]: 'fuzz', cookie: fx.admin.cookie, origin: fx.shop.url });
  const base = `${fx.shop.url}/admin`;
  const form = (fields: Record<string, string>): Record<string, string> => ({ _csrf: fx.admin.csrf, ...fields });
  const post = (path: string, fields: string[], validBase: Record<string, string>, valid: (f: Record<string, string>) => boolean = () => false): Target => ({
    route: `POST /admin${path}`,
    // A mutation that happens to be a valid request (a refund of 1.00) is no hostile input.
    arb: mutatedForm(form(validBase), fields).filter(({ form: f }) => !valid(f)),
    async send(input) {
      const { field, raw } = input as { field: string; raw: string };
      const a = await send(`${base}${path.replace(':id', fx.paid.id)}`, { body: raw, contentType: 'application/x-www-form-urlencoded', headers: headers() });
      if (a.status >= 500) return describe(a, raw.slice(0, 200));
      if (a.status === 400 && !a.text.includes(field) && !a.text.includes('Invalid')) return `400 without naming ${field}`;
      return null;
    },
  });
  const payout = {
    request_id: '00000000-0000-4000-8000-000000000000', payment_amount: '-1', payment_currency: 'EUR', payment_method: 'SWIFT', fee_paid_by: 'PAYER',
    swift_charge_option: 'SHARED', fund_source: 'DepositAccount', 'beneficiary.entity_type': 'COMPANY', 'beneficiary.company_name': 'Acme',
  };
  const getQuery = (path: string, names: string[]): Target => ({
    route: `GET /admin${path}`,
    arb: fc.dictionary(fc.constantFrom(...names), hostileString, { maxKeys: 3 }),
    async send(input) {
      const q = new URLSearchParams(input as Record<string, string>).toString();
      const a = await send(`${base}${path}?${q}`, { method: 'GET', headers: headers() });
      return a.status >= 500 ? describe(a, q) : null;
    },
  });
  return [
    post('/orders/:id/refund', ['refund_amount', 'refund_reason', '_csrf'], { refund_amount: '99999.99', refund_reason: 'fuzz' }, (f) => {
      try {
        parseRefundAmount(fx.paidOrder, f.refund_amount ?? '');
        return true;
      } catch {
        return false;
      }
    }),
    post('/orders/:id/capture', ['_csrf', 'x'], {}),
    post('/orders/:id/cancel', ['_csrf', 'x'], {}),
    post('/orders/:id/review', ['decision', '_csrf'], { decision: 'maybe' }),
    post('/orders/:id/sync', ['_csrf', 'x'], {}),
    post('/batch', ['orders', 'action', '_csrf'], { orders: 'NO-SUCH-ORDER', action: 'capture' }),
    post('/payouts', Object.keys(payout), payout),
    post('/subscriptions/cancel', ['recurring_id', 'contract_name', 'order_no', '_csrf'], { recurring_id: 'RC-NOPE', contract_name: 'x' }),
    getQuery('/', ['state', 'from', 'to', 'attention', 'page']),
    getQuery('/refunds', ['q', 'orders', 'references']),
    {
      route: 'GET /admin/orders/:id, /batch/:id, /payouts/:id (hostile ids)',
      arb: fc.tuple(fc.constantFrom('/orders/', '/batch/', '/payouts/', '/orders/by-number/'), hostileString),
      async send(input) {
        const [path, id] = input as [string, string];
        const a = await send(`${base}${path}${encode(id) || 'x'}`, { method: 'GET', headers: headers() });
        return a.status >= 500 ? describe(a, `${path}${id}`) : null;
      },
    },
    bodyTarget('POST /admin/orders/:id/refund', () => `${base}/orders/${fx.paid.id}/refund`, is4xx, headers),
  ];
}

/** Every sandbox endpoint: hostile bodies, and signed requests with one hostile field. */
function sandboxTargets(fx: Fixture): Target[] {
  const gateway = fx.shop.gateway.baseUrl;
  const valid: Record<string, string> = {
    merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, order_no: 'FUZZ-GW-1', currency: 'USD', amount: '10.00', website: 'shop.test',
    items: 'Tea#,#TEA#,#10.00#,#1', shopper_id: 's', shopper_email: 's@example.test', shopper_ip: '127.0.0.1', card: '4000000000000002',
    expiration_month: '12', expiration_year: FUTURE_YEAR, security_code: '737', request_id: '00000000-0000-4000-8000-000000000001', transaction_id: 'SBX-NOPE',
  };
  return SANDBOX_OPERATIONS.flatMap((operation): Target[] => [
    {
      route: `POST /v1/${operation} (signed, one field hostile)`,
      arb: mutatedForm(valid, ['order_no', 'currency', 'amount', 'items', 'card', 'expiration_month', 'expiration_year', 'shopper_email', 'merchant_id', 'request_id', 'transaction_id']),
      async send(input) {
        const { form } = input as { form: Record<string, string> };
        if (form.card !== undefined) rememberCard(form.card);
        const signed = { ...form, encryption_data: signMessage(operation === 'retrievalTrans' || operation === 'retrievalRefund' ? operation : 'authorise', form, fx.shop.signKey) };
        const a = await send(`${gateway}/v1/${operation}`, { body: JSON.stringify(signed), contentType: 'application/x-www-form-urlencoded' });
        if (a.status >= 500) return describe(a, JSON.stringify(form).slice(0, 200));
        if (is4xx(a) && !/"source":"[^"]+"/.test(a.text)) return `4xx without naming the field: ${a.text.slice(0, 100)}`;
        return null;
      },
    },
    bodyTarget(`POST /v1/${operation}`, () => `${gateway}/v1/${operation}`, (a) => is4xx(a) && /"source":"[^"]+"/.test(a.text)),
  ]);
}

export function fuzzTargets(fx: Fixture): Target[] {
  return [
    payTarget(fx),
    bodyTarget('POST /checkout/pay/:token', () => fx.pay.url, is4xx, () => ({ cookie: fx.pay.cookie, origin: fx.shop.url })),
    returnTarget(fx, 'return', 'GET'),
    returnTarget(fx, 'return', 'POST'),
    returnTarget(fx, 'cancel', 'GET'),
    returnTarget(fx, 'cancel', 'POST'),
    resultTarget(fx),
    notifyTarget(fx),
    bodyTarget('POST /checkout/notify', () => `${fx.shop.url}/checkout/notify`, is4xx),
    ...adminTargets(fx),
    ...sandboxTargets(fx),
    deviceTarget(fx),
  ];
}
