/**
 * What the example tests share: the sandbox gateway on a free port, a server that listens
 * before its app exists (the kit needs its public URL first), and a small cookie-keeping HTTP
 * client that reads and submits the kit's HTML forms as a browser would.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox, type Sandbox, type SandboxListener } from '../../../server/index.js';

export const MERCHANT_ID = '701001';
export const ACCOUNT_ID = '701001010';

export interface TestGateway {
  sandbox: Sandbox;
  listener: SandboxListener;
  account: { baseUrl: string; merchantId: string; accountId: string; signKey: string };
  close(): Promise<void>;
}

export async function startGateway(captureMode: 'auto' | 'manual' = 'auto'): Promise<TestGateway> {
  const signKey = `examples-${randomUUID()}`;
  const sandbox = createSandbox({
    accounts: [{ merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey, captureMode }],
    notifyTimeScale: 0.001,
    env: {},
  });
  const listener = await sandbox.listen(0);
  return {
    sandbox,
    listener,
    account: { baseUrl: listener.baseUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey },
    async close() {
      await sandbox.close();
    },
  };
}

export interface LateServer {
  url: string;
  serve(app: RequestListener): void;
  close(): Promise<void>;
}

/** Listens on a free port now; the app is attached once it has been built with `url`. */
export async function listenFirst(): Promise<LateServer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  return {
    url,
    serve(app) {
      server.on('request', app);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Reply {
  status: number;
  url: string;
  location: string | null;
  text: string;
}

/** An HTTP client with one cookie jar per origin that follows redirects like a browser. */
export class Visitor {
  private readonly jar = new Map<string, Map<string, string>>();

  private cookieHeader(url: string): string {
    const cookies = this.jar.get(new URL(url).origin);
    return cookies === undefined ? '' : [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(url: string, response: Response): void {
    const origin = new URL(url).origin;
    const cookies = this.jar.get(origin) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    this.jar.set(origin, cookies);
  }

  async request(method: 'GET' | 'POST', url: string, form?: Record<string, string>, follow = true): Promise<Reply> {
    let current = url;
    let currentMethod = method;
    let body: string | undefined = form === undefined ? undefined : new URLSearchParams(form).toString();
    for (let hop = 0; hop < 10; hop++) {
      const headers: Record<string, string> = { cookie: this.cookieHeader(current), origin: new URL(current).origin };
      if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      const response = await fetch(current, { method: currentMethod, headers, body, redirect: 'manual' });
      this.keep(current, response);
      const location = response.headers.get('location');
      if (follow && location !== null && response.status >= 300 && response.status < 400) {
        current = new URL(location, current).href;
        if (response.status === 303 || currentMethod === 'GET') {
          currentMethod = 'GET';
          body = undefined;
        }
        await response.arrayBuffer();
        continue;
      }
      return { status: response.status, url: current, location, text: await response.text() };
    }
    throw new Error(`too many redirects from ${url}`);
  }

  get(url: string): Promise<Reply> {
    return this.request('GET', url);
  }

  post(url: string, form: Record<string, string>, follow = true): Promise<Reply> {
    return this.request('POST', url, form, follow);
  }
}

const decode = (s: string): string => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The first form of the page containing `marker`: its action and its inputs' current values. */
export function formWith(html: string, marker: string): { action: string; fields: Record<string, string> } {
  const form = html.split('<form').slice(1).map((f) => f.slice(0, f.indexOf('</form>'))).find((f) => f.includes(marker));
  if (form === undefined) throw new Error(`no form containing ${marker}`);
  const action = decode(/action="([^"]*)"/.exec(form)?.[1] ?? '');
  const fields: Record<string, string> = {};
  for (const match of form.matchAll(/<input([^>]*)>/g)) {
    const attrs = match[1] ?? '';
    const name = /name="([^"]*)"/.exec(attrs)?.[1];
    if (name !== undefined) fields[decode(name)] = decode(/value="([^"]*)"/.exec(attrs)?.[1] ?? '');
  }
  return { action, fields };
}

export const FUTURE_YEAR = String(new Date().getUTCFullYear() + 3);

/** Pays the order behind `payUrl` by card through the kit's pay page; returns the final reply. */
export async function payByCard(visitor: Visitor, payUrl: string, card = '4242424242424242'): Promise<Reply> {
  const page = await visitor.get(payUrl);
  const form = formWith(page.text, 'name="method" value="card"');
  return visitor.post(form.action, {
    ...form.fields,
    card,
    expiration_month: '12',
    expiration_year: FUTURE_YEAR,
    security_code: '123',
    first_name: 'Ada',
    last_name: 'Lovelace',
  });
}
