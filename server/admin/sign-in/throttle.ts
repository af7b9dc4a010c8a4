/**
 * Sign-in throttling with express-rate-limit: failed attempts are counted per client address
 * (`req.ip`, so trust-proxy aware; IPv6 grouped by /56) and per account name, in one pluggable
 * `Store` (rate-limit-redis makes the counts hold across instances). A successful sign-in takes
 * its attempt back (`skipSuccessfulRequests`). Once a count is over its limit every attempt for
 * that address or account is refused until the window ends — the right password too — and the
 * refusal does not run the password check at all.
 */
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { AugmentedRequest } from 'express-rate-limit';
import type { ResolvedSignIn } from './options.js';

export interface SignInThrottle {
  /**
   * Counts this attempt for the request's address and for `account`. Null when it may go on;
   * else the seconds until the window ends (the response is not touched either way).
   */
  attempt(req: Request, res: Response, account: string): Promise<number | null>;
}

interface Current {
  key: string;
  limit: number;
  retryAfter: number | null;
}

/**
 * The counter key of an account name: case and surrounding blanks do not make a new account.
 * Hashed, so whatever was typed as a name (a card number, even) is never written to the store.
 */
export function accountKey(account: string): string {
  return `account:${createHash('sha256').update(account.trim().toLowerCase().slice(0, 100), 'utf8').digest('base64url')}`;
}

export function addressKey(req: Request): string {
  return `address:${ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown', 56)}`;
}

export function createSignInThrottle(options: ResolvedSignIn['rateLimit']): SignInThrottle {
  const { windowMs } = options;
  // One limiter (express-rate-limit refuses a Store shared by two) run once per key.
  const current = new WeakMap<Request, Current>();
  const state = (req: Request): Current => {
    const c = current.get(req);
    if (c === undefined) throw new Error('sign-in throttle used without a key');
    return c;
  };
  const limiter = rateLimit({
    windowMs,
    limit: (req) => state(req).limit,
    keyGenerator: (req) => state(req).key,
    skipSuccessfulRequests: true,
    standardHeaders: false,
    legacyHeaders: false,
    requestPropertyName: 'signInRateLimit',
    ...(options.store ? { store: options.store } : {}),
    handler: (req, _res, next) => {
      const reset = (req as AugmentedRequest & { signInRateLimit?: AugmentedRequest['rateLimit'] }).signInRateLimit?.resetTime;
      state(req).retryAfter = Math.max(1, Math.ceil((reset ? reset.getTime() - Date.now() : windowMs) / 1000));
      next();
    },
  });

  async function count(req: Request, res: Response, key: string, limit: number): Promise<number | null> {
    const c: Current = { key, limit, retryAfter: null };
    current.set(req, c);
    await new Promise<void>((resolve, reject) => {
      const done = (err?: unknown): void => {
        if (err === undefined) resolve();
        else reject(err instanceof Error ? err : new Error('sign-in rate limit failed', { cause: err }));
      };
      // The limiter is async; a store failure rejects its promise instead of calling next.
      Promise.resolve(limiter(req, res, done)).catch(done);
    });
    return c.retryAfter;
  }

  return {
    async attempt(req, res, account) {
      const byAddress = await count(req, res, addressKey(req), options.perAddress);
      if (byAddress !== null) return byAddress;
      return count(req, res, accountKey(account), options.perAccount);
    },
  };
}
