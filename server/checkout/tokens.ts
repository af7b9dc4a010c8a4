/**
 * Signed, expiring URL tokens naming an order and a purpose. They go in the URL path of the
 * pay, return, cancel and result pages, so the shopper needs no session cookie (the return is a
 * cross-site POST that `SameSite=Lax` cookies do not follow).
 *
 * Shape: base64url("<orderId>.<purpose>.<expiry seconds>") "." base64url(HMAC-SHA256(payload)).
 * Only URL-safe characters (A–Z a–z 0–9 - _ .): never `&`, which breaks the gateway's signature
 * of a return_url. Several secrets are accepted so they can be rotated; the first one signs.
 */
import { createHmacSigner } from '../http/hmac.js';

export const TOKEN_PURPOSES = ['pay', 'return', 'cancel', 'result'] as const;
export type TokenPurpose = (typeof TOKEN_PURPOSES)[number];

/** Default lifetimes: shoppers come back from issuers and hosted pages late. */
export const DEFAULT_TOKEN_TTL_MS: Readonly<Record<TokenPurpose, number>> = Object.freeze({
  pay: 24 * 60 * 60 * 1000,
  return: 7 * 24 * 60 * 60 * 1000,
  cancel: 7 * 24 * 60 * 60 * 1000,
  result: 30 * 24 * 60 * 60 * 1000,
});

export interface UrlTokens {
  /** A token for `orderId` and `purpose`, valid for `ttlMs` (default per purpose). */
  sign(orderId: string, purpose: TokenPurpose, ttlMs?: number): string;
  /** The order id when the token is authentic, unexpired and made for `purpose`; else null. */
  verify(token: string, purpose: TokenPurpose): { orderId: string } | null;
}

export interface UrlTokensOptions {
  /** One secret or several (rotation): the first signs, any verifies. */
  secrets: string | readonly string[];
  ttlMs?: Partial<Record<TokenPurpose, number>>;
  /** Clock, for tests. */
  now?: () => number;
}

/** Tokens longer than this are refused before any work is done. */
const MAX_TOKEN_LENGTH = 512;
const TOKEN_RE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/;

export function createUrlTokens(options: UrlTokensOptions): UrlTokens {
  // The secrets sign the payload directly (no context), as they always have: issued tokens stay valid.
  const hmac = createHmacSigner({ secrets: options.secrets });
  const ttl = { ...DEFAULT_TOKEN_TTL_MS, ...options.ttlMs };
  const now = options.now ?? Date.now;

  return {
    sign(orderId, purpose, ttlMs) {
      if (orderId.length === 0 || orderId.includes('.')) throw new TypeError('orderId must be non-empty and contain no "."');
      const expiry = Math.floor((now() + (ttlMs ?? ttl[purpose])) / 1000);
      const payload = Buffer.from(`${orderId}.${purpose}.${String(expiry)}`, 'utf8').toString('base64url');
      return `${payload}.${hmac.sign(payload)}`;
    },

    verify(token, purpose) {
      if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !TOKEN_RE.test(token)) return null;
      const dot = token.indexOf('.');
      const payload = token.slice(0, dot);
      if (!hmac.verify(payload, token.slice(dot + 1))) return null;
      const parts = Buffer.from(payload, 'base64url').toString('utf8').split('.');
      if (parts.length !== 3) return null;
      const [orderId = '', tokenPurpose, expiry = ''] = parts;
      if (tokenPurpose !== purpose || orderId.length === 0 || !/^\d{1,12}$/.test(expiry)) return null;
      if (Number(expiry) * 1000 <= now()) return null;
      return { orderId };
    },
  };
}
