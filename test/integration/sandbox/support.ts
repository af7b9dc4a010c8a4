/**
 * Helpers for the sandbox tests: a sandbox on port 0 with the kit's client pointed at it, raw
 * requests shaped like the published samples (JSON under a form content type), a notification
 * receiver on port 0, and readers for the sandbox's auto-submit pages.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayClient, type GatewayClient } from '../../../server/gateway/client.js';
import { signMessage, type SignedOperation } from '../../../server/gateway/signing.js';
import { parseAuthoriseXml } from '../../../server/gateway/xml.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../../server/sandbox/index.js';

export const MERCHANT_ID = '701001';
export const ACCOUNT_ID = '701001010';
export const SIGN_KEY = 'sandbox-sign-key-not-secret';
export const FUTURE_YEAR = String(new Date().getUTCFullYear() + 3);

export interface Harness {
  sandbox: Sandbox;
  baseUrl: string;
  client: GatewayClient;
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Harness> {
  const sandbox = createSandbox({ notifyTimeScale: 0.001, env: {}, ...options });
  const listener = await sandbox.listen(0);
  const client = createGatewayClient({
    baseUrl: listener.baseUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY,
    readRetries: { attempts: 1, baseDelayMs: 0 }, timeoutMs: 10_000,
  });
  return {
    sandbox,
    baseUrl: listener.baseUrl,
    client,
    close: async () => {
      await listener.close();
      await sandbox.close();
    },
  };
}

export const orderNo = (prefix = 'ORD'): string => `${prefix}-${randomUUID().slice(0, 12)}`;

export function sign(operation: SignedOperation, fields: Record<string, unknown>, key = SIGN_KEY): Record<string, unknown> {
  return { ...fields, encryption_data: signMessage(operation, fields, key) };
}

/** A direct payment request shaped like the published sample, signed. */
export function directRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, order_no: orderNo(), currency: 'USD', amount: '25.00',
    item_total: '25.00', shipping: '0.00', handling: '0.00', tax_total: '0.00', insurance: '0.00', shipping_discount: '0.00', discount: '0.00',
    website: 'shop.example', items: 'Tea#,#TEA-1#,#12.50#,#2', note: '', shopper_id: 'shopper-1', shopper_email: 'shopper@example.com',
    shopper_ip: '203.0.113.7', shopper_phone: '+31 20 555 0100', open3d: 'no3DS', token_flag: 'NO', token_id: '',
    card: '4242424242424242', expiration_month: '12', expiration_year: FUTURE_YEAR, security_code: '123',
    first_name: 'Ada', last_name: 'Lovelace', billing_country: 'NL', delivery_country: 'NL', delivery_city: 'Amsterdam',
    delivery_address: 'Damrak 1', delivery_postal_code: '1012 LG', delivery_firstname: 'Ada', delivery_lastname: 'Lovelace',
    device_type: 'PC', order_type: 'WEB', checkout_time: 1_700_000_000, challenge_window_size: '01',
    ...overrides,
  };
  return sign('authorise', fields);
}

export interface RawReply {
  status: number;
  text: string;
  headers: Headers;
}

/** POSTs like the samples: a JSON body labelled application/x-www-form-urlencoded. */
export async function postJsonAsForm(baseUrl: string, path: string, body: Record<string, unknown>): Promise<RawReply> {
  return postRaw(baseUrl, path, JSON.stringify(body), 'application/x-www-form-urlencoded');
}

export async function postForm(baseUrl: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<RawReply> {
  return postRaw(baseUrl, path, new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded', headers);
}

export async function postRaw(baseUrl: string, path: string, body: string | FormData, contentType: string | null, headers: Record<string, string> = {}): Promise<RawReply> {
  const response = await fetch(baseUrl + path, {
    method: 'POST',
    headers: { ...(contentType === null ? {} : { 'content-type': contentType }), ...headers },
    body,
    redirect: 'manual',
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

export async function getPage(url: string): Promise<RawReply> {
  const response = await fetch(url, { redirect: 'manual' });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

export const readRespon = (xml: string): ReturnType<typeof parseAuthoriseXml> => parseAuthoriseXml(xml);

const decode = (value: string): string =>
  value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

export interface PageForm {
  id: string;
  action: string;
  fields: Record<string, string>;
}

/** The forms of a page as a browser would submit them (named inputs only). */
export function formsOf(html: string): PageForm[] {
  const forms: PageForm[] = [];
  for (const match of html.matchAll(/<form([^>]*)>([\s\S]*?)<\/form>/g)) {
    const attributes = match[1] ?? '';
    const fields: Record<string, string> = {};
    for (const input of (match[2] ?? '').matchAll(/<input([^>]*)>/g)) {
      const name = /name="([^"]*)"/.exec(input[1] ?? '')?.[1];
      const value = /value="([^"]*)"/.exec(input[1] ?? '')?.[1] ?? '';
      if (name !== undefined) fields[decode(name)] = decode(value);
    }
    forms.push({ id: /id="([^"]*)"/.exec(attributes)?.[1] ?? '', action: decode(/action="([^"]*)"/.exec(attributes)?.[1] ?? ''), fields });
  }
  return forms;
}

/** The one auto-submitting form of a page (id="autosubmit"). */
export function autosubmitForm(html: string): PageForm {
  const form = formsOf(html).find((f) => f.id === 'autosubmit');
  if (form === undefined) throw new Error('no auto-submit form on the page');
  return form;
}

export interface Received {
  fields: Record<string, string>;
  contentType: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** A notify_url on port 0. `statusFor(n)` picks the HTTP status of the n-th (0-based) request. */
export async function startReceiver(statusFor: (n: number) => number = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  let count = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ fields: Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))), contentType: req.headers['content-type'] ?? '' });
      res.statusCode = statusFor(count++);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/notify`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => { resolve(); });
        server.closeAllConnections();
      }),
  };
}
