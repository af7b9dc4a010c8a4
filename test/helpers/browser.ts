/**
 * The tests' HTTP browser: cookie jars, manual redirects (303 turns a POST into a GET), HTML
 * forms read and submitted as a browser would. Journeys, reliability scenarios and the
 * multi-instance shopper all walk the pages with it; no JavaScript runs (test/browser/ drives a
 * real Chromium where that matters).
 */

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

/** Sees every page a browser is finally shown (after redirects). */
export interface PageObserver {
  observe(url: string, status: number, headers: Headers, body: string): void;
}

export interface BrowserOptions {
  /** Names the cookie jar of a URL (default: its host). Instances of one shop share a site. */
  siteOf?: (url: URL) => string;
  /** Sent with every request (e.g. the X-Forwarded-For a load balancer adds). */
  headers?: Record<string, string>;
  /** Per request, redirects counted apart (default 15 s): a gateway fault may hold a reply for minutes. */
  timeoutMs?: number;
  pages?: PageObserver;
  /** Called with every 5xx answer (url and status). */
  onServerError?: (url: string, status: number) => void;
  /** Sends a request again when its connection failed; none by default. */
  retry?: RetryPolicy;
}

/**
 * When a request that got no answer is sent again, as a browser does: one whose connection never
 * opened was never sent and is always resent; one whose connection broke after it was sent only
 * when `idempotent` says sending it twice changes nothing more than once. A timeout is not resent.
 */
export interface RetryPolicy {
  /** Further attempts after the first (default 2). */
  attempts?: number;
  idempotent: (method: string, url: URL) => boolean;
  /** Called before each resend with the failure's code. */
  onRetry?: (code: string, method: string, url: URL) => void;
}

/** The connection never opened: nothing was sent. */
const NOT_SENT = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT']);
/** The connection broke once the request may have been sent. */
const BROKEN = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" };
function decodeHtml(text: string): string {
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

/** The first form of the page, whatever it is. */
export function firstForm(page: Page): Form {
  const form = parseForms(page)[0];
  if (form === undefined) throw new Error(`no form on ${page.url} (status ${String(page.status)}): ${page.html.slice(0, 300)}`);
  return form;
}

/** The fields a browser sends for `form`: its own, then what was typed, then the button pressed. */
export function formFields(form: Form, fill: Record<string, string> = {}, button?: { name: string; value: string }): Record<string, string> {
  return { ...form.fields, ...fill, ...(button === undefined ? {} : { [button.name]: button.value }) };
}

/** The system or undici code of a failed request's cause (ECONNRESET, UND_ERR_SOCKET, …), or its name. */
export function causeCode(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && typeof e === 'object' && e !== null; depth++) {
    const { code, cause, name } = e as { code?: unknown; cause?: unknown; name?: unknown };
    if (typeof code === 'string') return code;
    if (cause === undefined) return typeof name === 'string' ? name : 'unknown';
    e = cause;
  }
  return 'unknown';
}

/** A request that got no answer at all: which one, and why (the cause's code). */
export class RequestError extends Error {
  readonly code: string;
  constructor(readonly method: string, readonly url: URL, cause: unknown) {
    const code = causeCode(cause);
    super(`${method} ${url.pathname} got no answer (${code}): ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'RequestError';
    this.code = code;
  }
}

export class Browser {
  readonly #jars = new Map<string, Map<string, string>>();
  readonly #options: BrowserOptions;

  constructor(options: BrowserOptions = {}) {
    this.#options = options;
  }

  #jar(url: URL): Map<string, string> {
    const site = this.#options.siteOf?.(url) ?? url.host;
    let jar = this.#jars.get(site);
    if (jar === undefined) {
      jar = new Map();
      this.#jars.set(site, jar);
    }
    return jar;
  }

  #store(jar: Map<string, string>, headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }

  /** One request, resent as the retry policy allows; a RequestError when no answer came. */
  async #fetch(url: URL, init: RequestInit & { method: string }): Promise<Response> {
    const retry = this.#options.retry;
    const attempts = retry?.attempts ?? 2;
    for (let attempt = 0; ; attempt++) {
      try {
        return await fetch(url, { ...init, signal: AbortSignal.timeout(this.#options.timeoutMs ?? 15_000) });
      } catch (err) {
        const failure = new RequestError(init.method, url, err);
        const resend = NOT_SENT.has(failure.code) || (BROKEN.has(failure.code) && retry?.idempotent(init.method, url) === true);
        if (retry === undefined || attempt >= attempts || !resend) throw failure;
        retry.onRetry?.(failure.code, init.method, url);
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      }
    }
  }

  /** `origin` goes in the Origin header of a POST, as a browser submitting a page's form sends it. */
  async request(method: string, url: string, fields?: Record<string, string>, origin?: string): Promise<Page> {
    const trail: string[] = [];
    let current = new URL(url);
    let currentMethod = method.toUpperCase();
    let body: string | undefined = fields === undefined ? undefined : new URLSearchParams(fields).toString();
    for (let hop = 0; hop < 15; hop++) {
      trail.push(current.toString());
      const jar = this.#jar(current);
      const headers: Record<string, string> = { accept: 'text/html', ...this.#options.headers };
      if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      if (origin !== undefined && currentMethod === 'POST') headers.origin = origin;
      const res = await this.#fetch(current, { method: currentMethod, headers, body, redirect: 'manual' });
      this.#store(jar, res.headers);
      if (res.status >= 500) this.#options.onServerError?.(current.toString(), res.status);
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
      const html = await res.text();
      this.#options.pages?.observe(current.toString(), res.status, res.headers, html);
      return { url: current.toString(), status: res.status, html, headers: res.headers, trail };
    }
    throw new Error(`too many redirects from ${url}`);
  }

  get(url: string): Promise<Page> {
    return this.request('GET', url);
  }

  /** Submits `form` to `action` (its own by default): POSTed, or its fields in the query of a GET. */
  send(form: Form, fields: Record<string, string>, action: string = form.action, origin?: string): Promise<Page> {
    if (form.method === 'post') return this.request('POST', action, fields, origin);
    const target = new URL(action);
    for (const [k, v] of Object.entries(fields)) target.searchParams.set(k, v);
    return this.request('GET', target.toString());
  }

  /** Submits a page's form as a browser would: its fields, then `fill`, then the clicked button. */
  submit(page: Page, form: Form, fill: Record<string, string> = {}, button?: { name: string; value: string }): Promise<Page> {
    return this.send(form, formFields(form, fill, button), form.action, new URL(page.url).origin);
  }
}
