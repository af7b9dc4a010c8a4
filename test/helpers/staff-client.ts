/**
 * A staff member's browser for the admin's built-in sign-in, over real HTTP: a cookie jar per
 * origin, the Origin header a browser sends on a form post, the sign-in form's CSRF token read
 * from the page, and extra headers (X-Forwarded-For behind a proxy). Cookies can be saved and
 * put back, as an attacker holding a copied cookie would.
 */
export interface StaffReply {
  status: number;
  location: string | null;
  headers: Headers;
  text: string;
}

const unescape = (s: string): string => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The hidden `_csrf` value of the first form posting to `action` on a page. */
export function csrfOf(html: string, action: string): string {
  const form = html.split('<form').slice(1).find((f) => f.includes(`action="${action}"`));
  const token = form === undefined ? undefined : /name="_csrf" value="([^"]*)"/.exec(form)?.[1];
  if (token === undefined) throw new Error(`no form posting to ${action} with a CSRF token`);
  return unescape(token);
}

export class StaffClient {
  cookies = new Map<string, string>();

  constructor(readonly baseUrl: string, readonly mount = '/admin', readonly extraHeaders: Record<string, string> = {}) {}

  async request(method: 'GET' | 'POST', path: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<StaffReply> {
    const all: Record<string, string> = { ...this.extraHeaders, ...headers };
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (cookie !== '') all.cookie = cookie;
    if (method === 'POST') {
      if (!('origin' in all)) all.origin = new URL(this.baseUrl).origin;
      all['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(`${this.baseUrl}${path}`, {
      method, headers: all, redirect: 'manual', ...(form === undefined ? {} : { body: new URLSearchParams(form).toString() }),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, location: res.headers.get('location'), headers: res.headers, text: await res.text() };
  }

  get(path: string, headers?: Record<string, string>): Promise<StaffReply> {
    return this.request('GET', `${this.mount}${path}`, undefined, headers);
  }

  /** Posts a form of the admin page at `pagePath` (its CSRF token included). */
  async postForm(pagePath: string, action: string, fields: Record<string, string>, headers?: Record<string, string>): Promise<StaffReply> {
    const page = await this.get(pagePath);
    return this.request('POST', `${this.mount}${action}`, { _csrf: csrfOf(page.text, `${this.mount}${action}`), ...fields }, headers);
  }

  signIn(user: string, password: string, headers?: Record<string, string>): Promise<StaffReply> {
    return this.postForm('/login', '/login', { user, password }, headers);
  }

  signOut(): Promise<StaffReply> {
    return this.postForm('/login', '/logout', {});
  }

  changePassword(current: string, next: string, again = next): Promise<StaffReply> {
    return this.postForm('/password', '/password', { current_password: current, new_password: next, confirm_password: again });
  }

  /** The session cookie as it is now (to put back later). */
  saved(): Map<string, string> {
    return new Map(this.cookies);
  }

  /** A browser holding exactly the given cookies. */
  static withCookies(baseUrl: string, cookies: Map<string, string>, mount = '/admin'): StaffClient {
    const c = new StaffClient(baseUrl, mount);
    c.cookies = new Map(cookies);
    return c;
  }
}
