/**
 * Server-side staff sessions. The browser holds a random 256-bit id in an HttpOnly, SameSite=Lax
 * cookie scoped to the admin's path, `Secure` whenever the request came over https (`req.secure`,
 * which honours Express's `trust proxy`). The store keeps only the id's SHA-256, so a session
 * ends for good when its row goes: at sign-out, at a password change, or at expiry.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { CookieOptions, Request, Response } from 'express';
import { readCookie } from '../../http/cookies.js';
import type { Staff } from '../options.js';
import type { StaffStore } from '../staff-store.js';

export const SESSION_COOKIE = 'admin_session';
const ID_RE = /^[A-Za-z0-9_-]{43}$/;

export interface SessionsOptions {
  store: StaffStore;
  ttlMs: number;
  cookiePath: (req: Request) => string;
  now?: () => Date;
}

export interface Sessions {
  /** The staff member of this request's session cookie, or null. */
  authorize(req: Request): Promise<Staff | null>;
  /** Starts a session for `staffId` and sets its cookie. */
  start(req: Request, res: Response, staffId: string): Promise<void>;
  /** Deletes this request's session (if any) and clears its cookie. */
  end(req: Request, res: Response): Promise<void>;
  /** Deletes this request's session (if any), leaving the cookie to be replaced. */
  discard(req: Request): Promise<void>;
}

export function hashSessionId(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('hex');
}

export function createSessions(options: SessionsOptions): Sessions {
  const { store, ttlMs } = options;
  const now = options.now ?? (() => new Date());
  const cookieOptions = (req: Request): CookieOptions => ({
    httpOnly: true,
    sameSite: 'lax',
    secure: req.secure,
    path: options.cookiePath(req),
  });
  const idOf = (req: Request): string | null => {
    const raw = readCookie(req, SESSION_COOKIE);
    return raw !== null && ID_RE.test(raw) ? raw : null;
  };

  async function discard(req: Request): Promise<void> {
    const id = idOf(req);
    if (id !== null) await store.deleteSession(hashSessionId(id));
  }

  return {
    async authorize(req) {
      const id = idOf(req);
      if (id === null) return null;
      const session = await store.getSession(hashSessionId(id), now());
      if (session === null) return null;
      const account = await store.getStaff(session.staffId);
      if (account === null) return null;
      return account.name === null ? { id: account.id } : { id: account.id, name: account.name };
    },
    async start(req, res, staffId) {
      const at = now();
      // Sign-ins are rare: a good moment to drop the rows of sessions that ran out.
      await store.deleteExpiredSessions(at);
      const id = randomBytes(32).toString('base64url');
      await store.createSession({ idHash: hashSessionId(id), staffId, createdAt: at, expiresAt: new Date(at.getTime() + ttlMs) });
      res.cookie(SESSION_COOKIE, id, { ...cookieOptions(req), maxAge: ttlMs });
    },
    async end(req, res) {
      await discard(req);
      res.clearCookie(SESSION_COOKIE, cookieOptions(req));
    },
    discard,
  };
}
