/**
 * The kit's staff sign-in: `GET/POST <mount>/login` before the authenticate guard, and
 * `POST <mount>/logout` and `GET/POST <mount>/password` behind it (so they need a session, a
 * same-origin request and the CSRF token, like every other admin write). Failed sign-ins and
 * failed password checks are throttled per address and per account; the answer to an unknown
 * user name and to a wrong password is the same page, after the same scrypt work.
 */
import type { Request, Response, Router } from 'express';
import type { Csrf } from '../../http/csrf.js';
import type { Logger } from '../../logging.js';
import type { KitObserver } from '../../observability/observer.js';
import { BodyTooLargeError, first, readForm, type FormFields } from '../../http/form-body.js';
import type { FlashCodec } from '../flash.js';
import type { Staff } from '../options.js';
import { csrfBinding, formOf, isSameOrigin } from '../security.js';
import type { StaffStore } from '../staff-store.js';
import { pageContext, sendError, sendView, type PageContext, type Views } from '../views.js';
import { seedStaff, staffDirectory } from './accounts.js';
import type { ResolvedSignIn } from './options.js';
import { dummyHash, hashPassword, verifyPassword } from './passwords.js';
import { createSessions } from './sessions.js';
import { createSignInThrottle } from './throttle.js';

export const LOGIN_BINDING = 'admin-login';
export const MIN_NEW_PASSWORD = 10;
const MISMATCH = 'That user name and password do not match.';

export interface SignInDeps {
  options: ResolvedSignIn;
  store: StaffStore;
  csrf: Csrf;
  flash: FlashCodec;
  views: Views;
  logger: Logger;
  allowedOrigins: ReadonlySet<string>;
  basePath: (req: Request) => string;
  /** Counts sign-ins refused by the throttle. */
  observer?: KitObserver | undefined;
}

export interface SignIn {
  authorize: (req: Request) => Promise<Staff | null>;
  onUnauthenticated: (req: Request, res: Response) => void;
  /** Resolves once the configured accounts are in the store. */
  ready: Promise<void>;
  /** /login: mounted before the authenticate guard. */
  publicRoutes(router: Router): void;
  /** /logout and /password: mounted after the guards. */
  signedInRoutes(router: Router): void;
}

function tooMany(res: Response, views: Views, retryAfter: number): void {
  const minutes = Math.ceil(retryAfter / 60);
  res.set('Retry-After', String(retryAfter));
  sendError(res, views, 429, 'Too many sign-in attempts',
    `Sign-in is paused for this account or connection after too many failed attempts. Try again in ${minutes === 1 ? 'a minute' : `about ${String(minutes)} minutes`}; nothing else is needed.`);
}

export function createSignIn(deps: SignInDeps): SignIn {
  const { options, store, csrf, views, logger } = deps;
  const directory = staffDirectory(options.staff);
  const sessions = createSessions({ store, ttlMs: options.sessionTtlMs, cookiePath: (req) => deps.basePath(req) || '/' });
  const throttle = createSignInThrottle(options.rateLimit);
  const ready = Promise.all([seedStaff(store, options.staff), dummyHash()]).then(() => undefined);
  ready.catch((err: unknown) => {
    logger.error({ err }, 'admin: writing the signIn staff accounts to the admin store failed');
  });

  async function authorize(req: Request): Promise<Staff | null> {
    const staff = await sessions.authorize(req);
    return staff !== null && directory.has(staff.id) ? staff : null;
  }

  function loginPage(req: Request, res: Response, locals: { signedIn: Staff | null; user: string; error: string | null }, status = 200): void {
    const binding = locals.signedIn === null ? LOGIN_BINDING : csrfBinding(locals.signedIn);
    res.locals.admin = { base: deps.basePath(req), staff: null, csrfToken: csrf.issue(req, res, binding), flash: null } satisfies PageContext;
    sendView(res, views, 'login', { title: 'Staff sign-in', note: options.note, ...locals }, status);
  }

  async function readLogin(req: Request, res: Response): Promise<FormFields | null> {
    res.locals.admin = { base: deps.basePath(req), staff: null, csrfToken: '', flash: null } satisfies PageContext;
    if (!isSameOrigin(req, deps.allowedOrigins)) {
      sendError(res, views, 403, 'Request refused', 'This sign-in did not come from this admin\'s sign-in page, so it was refused.');
      return null;
    }
    try {
      const fields = await readForm(req);
      if (csrf.check(req, LOGIN_BINDING) !== null) {
        sendError(res, views, 403, 'Form expired', 'This sign-in form has expired. Reload the sign-in page and try again.');
        return null;
      }
      return fields;
    } catch (err) {
      const tooLarge = err instanceof BodyTooLargeError;
      sendError(res, views, tooLarge ? 413 : 400, tooLarge ? 'Form too large' : 'Unreadable form', tooLarge ? err.message : 'The form could not be read.');
      return null;
    }
  }

  function publicRoutes(router: Router): void {
    router.get('/login', async (req, res) => {
      loginPage(req, res, { signedIn: await authorize(req), user: '', error: null });
    });
    router.post('/login', async (req, res) => {
      const fields = await readLogin(req, res);
      if (fields === null) return;
      const user = first(fields, 'user');
      const password = first(fields, 'password');
      if (user.length > 100 || password.length > 200) {
        sendError(res, views, 400, 'Invalid input', `The ${user.length > 100 ? 'user name' : 'password'} is too long (field ${user.length > 100 ? 'user' : 'password'}).`);
        return;
      }
      const retryAfter = await throttle.attempt(req, res, user);
      if (retryAfter !== null) {
        // Only a configured id is logged: what was typed as a name could be anything, a card number too.
        logger.warn({ account: directory.lookup(user) ?? '(unknown)', ip: req.ip }, 'admin: sign-in refused, too many failed attempts');
        deps.observer?.rateLimited('admin_sign_in');
        tooMany(res, views, retryAfter);
        return;
      }
      await ready;
      const id = directory.lookup(user);
      // An unknown name reads the store too (for nothing), so both cases do the same work.
      const account = id === null ? await store.getStaff('').then(() => null) : await store.getStaff(id);
      // Always one scrypt: an unknown name costs what a wrong password costs.
      if (!(await verifyPassword(password, account?.passwordHash ?? null)) || account === null) {
        // The typed name is shown again, unless it looks like a card number typed in the wrong place.
        const echo = /\d{12}/.test(user.replace(/[\s-]/g, '')) ? '' : user.slice(0, 100);
        loginPage(req, res, { signedIn: null, user: echo, error: MISMATCH }, 401);
        return;
      }
      // A session this browser already had ends: the new one replaces it.
      await sessions.discard(req);
      await sessions.start(req, res, account.id);
      logger.info({ staff: account.id }, 'admin: staff signed in');
      res.redirect(303, `${deps.basePath(req)}/`);
    });
  }

  function signedInRoutes(router: Router): void {
    router.use((_req, res, next) => {
      (res.locals.admin as PageContext).signIn = true;
      next();
    });
    router.post('/logout', async (req, res) => {
      await sessions.end(req, res);
      logger.info({ staff: pageContext(res).staff?.id ?? null }, 'admin: staff signed out');
      res.redirect(303, `${deps.basePath(req)}/login`);
    });
    router.get('/password', (_req, res) => {
      sendView(res, views, 'password', { title: 'Change password', error: null, minLength: MIN_NEW_PASSWORD });
    });
    router.post('/password', async (req, res) => {
      const staff = pageContext(res).staff as Staff;
      const form = formOf(res);
      const [current, next, again] = ['current_password', 'new_password', 'confirm_password'].map((f) => first(form, f));
      const refuse = (status: number, error: string): void => {
        sendView(res, views, 'password', { title: 'Change password', error, minLength: MIN_NEW_PASSWORD }, status);
      };
      const retryAfter = await throttle.attempt(req, res, staff.id);
      if (retryAfter !== null) {
        tooMany(res, views, retryAfter);
        return;
      }
      const account = await store.getStaff(staff.id);
      if (!(await verifyPassword(current ?? '', account?.passwordHash ?? null)) || account === null) {
        refuse(401, 'The current password is not right (field current_password). Nothing changed.');
        return;
      }
      if ((next ?? '').length < MIN_NEW_PASSWORD || (next ?? '').length > 200) {
        refuse(400, `The new password must have ${String(MIN_NEW_PASSWORD)} to 200 characters (field new_password). Nothing changed.`);
        return;
      }
      if (next !== again) {
        refuse(400, 'The two new passwords differ (field confirm_password). Nothing changed.');
        return;
      }
      // A new hash: the store ends every session of the account, this one included.
      await store.saveStaff({ ...account, passwordHash: await hashPassword(next ?? ''), passwordChangedAt: new Date() });
      await sessions.start(req, res, account.id);
      logger.info({ staff: account.id }, 'admin: staff changed their password; other sessions ended');
      res.redirect(303, `${deps.basePath(req)}/?${deps.flash.encode({ kind: 'ok', text: 'Password changed. Every other session was signed out.' })}`);
    });
  }

  return {
    authorize,
    onUnauthenticated: (req, res) => {
      res.redirect(303, `${deps.basePath(req)}/login`);
    },
    ready,
    publicRoutes,
    signedInRoutes,
  };
}
