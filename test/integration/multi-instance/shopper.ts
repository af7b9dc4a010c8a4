/**
 * A shopper whose requests may land on any shop instance, as behind a load balancer: one cookie
 * jar for the shop (every instance serves the same site) and one for the gateway, redirects
 * followed, and forms submitted either where they point or to another instance (`via`).
 */
import type { Form, Page } from '../checkout/journeys-harness.js';

export interface SubmitOptions {
  /** Send the form to this origin instead of the one in its action (another instance). */
  via?: string;
  /** Field values typed by the shopper. */
  fill?: Record<string, string>;
  /** The button pressed. */
  button?: { name: string; value: string };
}

export class Shopper {
  readonly #jars = new Map<string, Map<string, string>>();
  readonly #headers: Record<string, string>;
  readonly #siteOf: (url: URL) => string;

  /**
   * `siteOf` names the cookie jar of a URL: the shop's instances share one. `headers` go with
   * every request (e.g. the X-Forwarded-For a load balancer adds).
   */
  constructor(siteOf: (url: URL) => string, headers: Record<string, string> = {}) {
    this.#siteOf = siteOf;
    this.#headers = headers;
  }

  #jar(url: URL): Map<string, string> {
    const site = this.#siteOf(url);
    let jar = this.#jars.get(site);
    if (jar === undefined) {
      jar = new Map();
      this.#jars.set(site, jar);
    }
    return jar;
  }

  async request(method: string, url: string, fields?: Record<string, string>): Promise<Page> {
    const trail: string[] = [];
    let current = new URL(url);
    let currentMethod = method.toUpperCase();
    let body = fields === undefined ? undefined : new URLSearchParams(fields).toString();
    for (let hop = 0; hop < 15; hop++) {
      trail.push(current.toString());
      const jar = this.#jar(current);
      const headers: Record<string, string> = { accept: 'text/html', ...this.#headers };
      if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      const res = await fetch(current, { method: currentMethod, headers, body, redirect: 'manual' });
      for (const line of res.headers.getSetCookie()) {
        const [pair = ''] = line.split(';');
        const eq = pair.indexOf('=');
        if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      }
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

  submit(form: Form, options: SubmitOptions = {}): Promise<Page> {
    const { button } = options;
    const fields = { ...form.fields, ...options.fill, ...(button === undefined ? {} : { [button.name]: button.value }) };
    const target = new URL(form.action);
    if (options.via !== undefined) {
      const via = new URL(options.via);
      target.protocol = via.protocol;
      target.host = via.host;
    }
    if (form.method === 'post') return this.request('POST', target.toString(), fields);
    for (const [k, v] of Object.entries(fields)) target.searchParams.set(k, v);
    return this.request('GET', target.toString());
  }
}
