/**
 * The card-testing guard on POST /pay: express-rate-limit keyed by the shopper's IP (trust-proxy
 * aware through `req.ip`, IPv6 grouped by /56). The store is pluggable: any express-rate-limit
 * `Store` (e.g. rate-limit-redis) makes the limit hold across several shop instances.
 */
import type { Request, Response } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { AugmentedRequest, RateLimitRequestHandler, Store } from 'express-rate-limit';
import { ConfigError } from '../errors.js';

export interface PayRateLimitOptions {
  /** Length of the window in milliseconds. */
  windowMs: number;
  /** POSTs allowed per key and window; the next one is answered 429. */
  limit: number;
  /** Shared store; the built-in memory store (per process) when absent. */
  store?: Store | undefined;
  /** Answers a limited request; default: 429 with a short plain-text explanation. */
  onLimited?: (req: Request, res: Response, retryAfterSeconds: number) => void;
}

export const RATE_LIMIT_MESSAGE =
  'Too many payment attempts from your connection. Please wait a few minutes before trying again.';

function defaultOnLimited(_req: Request, res: Response): void {
  res.type('text/plain').send(RATE_LIMIT_MESSAGE);
}

export function payRateLimit(options: PayRateLimitOptions): RateLimitRequestHandler {
  const { windowMs, limit } = options;
  if (!Number.isSafeInteger(windowMs) || windowMs < 1000) {
    throw new ConfigError('rateLimit.windowMs', `must be a whole number of milliseconds ≥ 1000, got ${String(windowMs)}`, 'set e.g. 600000 (ten minutes)');
  }
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new ConfigError('rateLimit.limit', `must be a whole number ≥ 1, got ${String(limit)}`, 'set e.g. 10 payment attempts per window');
  }
  const onLimited = options.onLimited ?? defaultOnLimited;
  return rateLimit({
    windowMs,
    limit,
    // draft-7 `RateLimit` / `RateLimit-Policy` headers: draft-8 adds a partition key, a SHA-256
    // of the client's key computed on every POST, for no use a shopper's browser has.
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    ...(options.store ? { store: options.store } : {}),
    handler: (req, res) => {
      const reset = (req as AugmentedRequest).rateLimit?.resetTime;
      const retryAfter = Math.max(1, Math.ceil((reset ? reset.getTime() - Date.now() : windowMs) / 1000));
      res.status(429);
      onLimited(req, res, retryAfter);
    },
  });
}
