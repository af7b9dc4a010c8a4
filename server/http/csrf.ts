/**
 * CSRF protection without server-side sessions: a signed double submit.
 *
 * The browser holds a random value `r` in an HttpOnly, SameSite=Strict cookie scoped to the
 * mount path. Each form carries `r.mac`, where mac = HMAC(key, binding ‖ r) and `binding` names
 * what the form acts on (the order id of a pay page). A POST passes only when the cookie is
 * present, the field's `r` equals the cookie, and the MAC is valid for this binding. A cross-site
 * page can neither read nor set the cookie's value with a matching MAC, and a field taken from
 * another order's page fails because the binding differs.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { CookieOptions, Request, RequestHandler, Response } from 'express';
import { readCookie } from './cookies.js';
import { createHmacSigner } from './hmac.js';

export const CSRF_FIELD = '_csrf';
export const CSRF_COOKIE = 'checkout_csrf';

export interface CsrfOptions {
  /** HMAC secrets; the first signs, any verifies (rotation). The kit passes its token secrets. */
  secrets: readonly string[];
  cookieName?: string;
  fieldName?: string;
  /** Cookie path; defaults to the router's mount path (`req.baseUrl`, or `/`). */
  cookiePath?: (req: Request) => string;
  /** Cookie lifetime; defaults to 12 hours. */
  maxAgeMs?: number;
}

export type CsrfFailureReason = 'missing_cookie' | 'missing_field' | 'malformed' | 'mismatch';

export interface Csrf {
  readonly fieldName: string;
  readonly cookieName: string;
  /** Reuses or sets the cookie and returns the hidden field value for a form bound to `binding`. */
  issue(req: Request, res: Response, binding: string): string;
  /** Null when the request's cookie and field are valid for `binding`; else why not. */
  check(req: Request, binding: string): CsrfFailureReason | null;
  /**
   * Middleware: refuses the request with `onFailure` (default: 403 with a short page) unless
   * `check` passes for the binding `bindingOf` returns. Needs a parsed body (express.urlencoded).
   */
  protect(
    bindingOf: (req: Request, res: Response) => string | null,
    onFailure?: (req: Request, res: Response, reason: CsrfFailureReason) => void,
  ): RequestHandler;
}

const RANDOM_RE = /^[A-Za-z0-9_-]{22}$/;
const FIELD_RE = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

const macInput = (binding: string, random: string): string => `${binding}\u0000${random}`;

function defaultFailure(_req: Request, res: Response): void {
  res
    .status(403)
    .type('text/plain')
    .send('This form has expired or was not sent from this site. Go back, reload the page and try again.');
}

export function createCsrf(options: CsrfOptions): Csrf {
  // A context of its own, so the token secrets never sign anything CSRF-shaped directly.
  const hmac = createHmacSigner({ secrets: options.secrets, context: 'checkout-kit/csrf/v1' });
  const cookieName = options.cookieName ?? CSRF_COOKIE;
  const fieldName = options.fieldName ?? CSRF_FIELD;
  const maxAge = options.maxAgeMs ?? 12 * 60 * 60 * 1000;
  const pathOf = options.cookiePath ?? ((req: Request) => (req.baseUrl === '' ? '/' : req.baseUrl));

  function cookieOptions(req: Request): CookieOptions {
    return { httpOnly: true, sameSite: 'strict', secure: req.secure, path: pathOf(req), maxAge };
  }

  function check(req: Request, binding: string): CsrfFailureReason | null {
    const cookie = readCookie(req, cookieName);
    if (cookie === null || cookie === '') return 'missing_cookie';
    const body: unknown = req.body;
    const field = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[fieldName] : undefined;
    if (typeof field !== 'string' || field === '') return 'missing_field';
    const match = FIELD_RE.exec(field);
    if (!match || !RANDOM_RE.test(cookie)) return 'malformed';
    const [, random = '', provided = ''] = match;
    // Both checks always run, so timing does not tell which one failed.
    const sameRandom = timingSafeEqual(Buffer.from(random), Buffer.from(cookie));
    const macOk = hmac.verify(macInput(binding, random), provided);
    const ok = sameRandom && macOk;
    return ok ? null : 'mismatch';
  }

  return {
    fieldName,
    cookieName,
    issue(req, res, binding) {
      const existing = readCookie(req, cookieName);
      const random = existing !== null && RANDOM_RE.test(existing) ? existing : randomBytes(16).toString('base64url');
      res.cookie(cookieName, random, cookieOptions(req));
      return `${random}.${hmac.sign(macInput(binding, random))}`;
    },
    check,
    protect(bindingOf, onFailure = defaultFailure) {
      return (req, res, next) => {
        const binding = bindingOf(req, res);
        const reason = binding === null ? 'mismatch' : check(req, binding);
        if (reason === null) {
          next();
          return;
        }
        onFailure(req, res, reason);
      };
    },
  };
}
