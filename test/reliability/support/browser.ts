/**
 * A small browser for the scenarios: cookies per origin, manual redirects, a timeout on every
 * request (a gateway fault may hold a reply for minutes), and every response shown to the page
 * checker. Forms are read with the journeys' own parser.
 */
import { parseForms, type Form, type Page } from '../../integration/checkout/journeys-harness.js';
import type { PageChecker } from './pages.js';

export type { Form, Page };
export { onlyForm, parseForms, payForm } from '../../integration/checkout/journeys-harness.js';

export interface BrowserOptions {
  pages?: PageChecker;
  timeoutMs?: number;
  /** Called with every 5xx answer (url and status). */
  onServerError?: (url: string, status: number) => void;
}

export class Browser {
  readonly #jar = new Map<string, Map<string, string>>();
  readonly #options: BrowserOptions;

  constructor(options: BrowserOptions = {}) {
    this.#options = options;
  }

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
    let from = origin;
    for (let hop = 0; hop < 15; hop++) {
      trail.push(current.toString());
      const headers: Record<string, string> = { accept: 'text/html' };
      const cookie = this.#cookieHeader(current);
      if (cookie !== undefined) headers.cookie = cookie;
      if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      if (from !== undefined && currentMethod === 'POST') headers.origin = from;
      const res = await fetch(current, { method: currentMethod, headers, body, redirect: 'manual', signal: AbortSignal.timeout(this.#options.timeoutMs ?? 15_000) });
      this.#store(current, res.headers);
      if (res.status >= 500) this.#options.onServerError?.(current.toString(), res.status);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location !== null) {
        await res.arrayBuffer();
        const next = new URL(location, current);
        if (res.status !== 307 && res.status !== 308) {
          currentMethod = 'GET';
          body = undefined;
          from = undefined;
        }
        current = next;
        continue;
      }
      const html = await res.text();
      this.#options.pages?.observe(current.toString(), res.status, res.headers, html);
      return { url: current.toString(), status: res.status, html, headers: res.headers, trail };
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

/** The first form of the page, whatever it is (auto-submitting pages have one). */
export function firstForm(page: Page): Form {
  const form = parseForms(page)[0];
  if (form === undefined) throw new Error(`no form on ${page.url} (status ${String(page.status)}): ${page.html.slice(0, 300)}`);
  return form;
}
