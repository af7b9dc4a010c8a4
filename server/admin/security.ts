/**
 * The admin's guards, in the order they run: no-store and a strict CSP on every response, then
 * staff authentication, then — for every state-changing request — a same-origin check on
 * Origin/Referer, the form body, and the signed CSRF token. A request failing any of them is
 * refused before any handler runs, so it changes nothing.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { cspMiddleware, originOf } from '../http/csp.js';
import type { Csrf } from '../http/csrf.js';
import type { Logger } from '../logging.js';
import { BodyTooLargeError, readForm } from '../http/form-body.js';
import type { FormFields } from '../http/form-body.js';
import type { FlashCodec } from './flash.js';
import type { Staff } from './options.js';
import type { PageContext, Views } from './views.js';
import { sendError } from './views.js';

export interface GuardDeps {
  authorize: (req: Request) => Staff | null | Promise<Staff | null>;
  onUnauthenticated: ((req: Request, res: Response) => void) | undefined;
  csrf: Csrf;
  flash: FlashCodec;
  views: Views;
  logger: Logger;
  allowedOrigins: ReadonlySet<string>;
  basePath: (req: Request) => string;
}

const csp = cspMiddleware();

/** CSRF tokens are bound to the staff member, so one person's form never works for another. */
export function csrfBinding(staff: Staff): string {
  return `admin:${staff.id}`;
}

export function headers(): RequestHandler {
  return (req, res, next) => {
    res.set('Cache-Control', 'no-store');
    res.set('Pragma', 'no-cache');
    csp(req, res, (err?: unknown) => {
      if (err !== undefined) {
        next(err);
        return;
      }
      // Same-origin (not no-referrer): browsers then send the real Origin on same-site form
      // posts, which the origin check below needs; admin URLs carry no secrets.
      res.set('Referrer-Policy', 'same-origin');
      next();
    });
  };
}

function isStaff(value: unknown): value is Staff {
  if (value === null || typeof value !== 'object') return false;
  const { id, name } = value as { id?: unknown; name?: unknown };
  return typeof id === 'string' && id.length > 0 && id.length <= 200 && (name === undefined || typeof name === 'string');
}

export function authenticate(deps: GuardDeps): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    let staff: unknown;
    try {
      staff = await deps.authorize(req);
    } catch (err) {
      deps.logger.error({ err }, 'admin authorize() threw');
      sendError(res, deps.views, 500, 'Sign-in check failed', 'The sign-in check failed. Try again; if it keeps failing, tell the shop administrator.');
      return;
    }
    if (staff !== null && staff !== undefined && !isStaff(staff)) {
      deps.logger.warn({}, 'admin authorize() returned something that is not { id: string, name?: string }; treated as signed out');
      staff = null;
    }
    if (!isStaff(staff)) {
      if (deps.onUnauthenticated) {
        deps.onUnauthenticated(req, res);
        return;
      }
      res.locals.admin = { base: deps.basePath(req), staff: null, csrfToken: '', flash: null } satisfies PageContext;
      sendError(res, deps.views, 401, 'Sign in required', 'You need to be signed in as staff to use the admin.');
      return;
    }
    const who: Staff = staff.name === undefined ? { id: staff.id } : { id: staff.id, name: staff.name };
    res.locals.admin = {
      base: deps.basePath(req),
      staff: who,
      csrfToken: deps.csrf.issue(req, res, csrfBinding(who)),
      flash: deps.flash.decode(req.query.flash),
    } satisfies PageContext;
    next();
  };
}

/** The origin this request was addressed to (trust-proxy aware through req.protocol). */
function ownOrigin(req: Request): string | null {
  const host = req.get('host');
  return host === undefined ? null : `${req.protocol}://${host}`;
}

export function isSameOrigin(req: Request, allowed: ReadonlySet<string>): boolean {
  const own = ownOrigin(req);
  const origin = req.get('origin');
  const claimed = origin !== undefined ? (origin === 'null' ? null : originOf(origin)) : originOf(req.get('referer') ?? '');
  if (claimed === null) return false;
  return claimed === own || allowed.has(claimed);
}

/** Same-origin check, form body and CSRF token for every state-changing request. */
export function protectWrites(deps: GuardDeps): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') {
      next();
      return;
    }
    if (!isSameOrigin(req, deps.allowedOrigins)) {
      deps.logger.warn({ path: req.path, origin: req.get('origin') ?? null }, 'admin: cross-site request refused');
      sendError(res, deps.views, 403, 'Request refused', 'This request did not come from an admin page of this site, so it was refused and nothing changed.');
      return;
    }
    let fields: FormFields;
    try {
      fields = await readForm(req);
    } catch (err) {
      const tooLarge = err instanceof BodyTooLargeError;
      sendError(res, deps.views, tooLarge ? 413 : 400, tooLarge ? 'Form too large' : 'Unreadable form', tooLarge ? err.message : 'The form could not be read.');
      return;
    }
    const staff = (res.locals.admin as PageContext).staff;
    const reason = staff === null ? 'mismatch' : deps.csrf.check(req, csrfBinding(staff));
    if (reason !== null) {
      sendError(res, deps.views, 403, 'Form expired', 'This form has expired or was not sent from this admin. Reload the page and try again; nothing changed.');
      return;
    }
    res.locals.form = fields;
    next();
  };
}

export function formOf(res: Response): FormFields {
  return (res.locals as { form?: FormFields }).form ?? {};
}
