/**
 * Signed, expiring URL tokens naming an order and a purpose. They go in the URL path of the
 * pay, return, cancel and result pages, so the shopper needs no session cookie (the return is a
 * cross-site POST that `SameSite=Lax` cookies do not follow).
 *
 * Shape: base64url("<orderId>.<purpose>.<expiry seconds>") "." base64url(HMAC-SHA256(payload)).
 * Only URL-safe characters (A–Z a–z 0–9 - _ .): never `&`, which breaks the gateway's signature
 * of a return_url. Several secrets are accepted so they can be rotated; the first one signs.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

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

function mac(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload, 'utf8').digest();
}

export function createUrlTokens(options: UrlTokensOptions): UrlTokens {
  const secrets = (typeof options.secrets === 'string' ? [options.secrets] : [...options.secrets]).filter((s) => s.length > 0);
  const signer = secrets[0];
  if (signer === undefined) throw new TypeError('createUrlTokens needs at least one non-empty secret');
  const ttl = { ...DEFAULT_TOKEN_TTL_MS, ...options.ttlMs };
  const now = options.now ?? Date.now;

  return {
    sign(orderId, purpose, ttlMs) {
      if (orderId.length === 0 || orderId.includes('.')) throw new TypeError('orderId must be non-empty and contain no "."');
      const expiry = Math.floor((now() + (ttlMs ?? ttl[purpose])) / 1000);
      const payload = Buffer.from(`${orderId}.${purpose}.${String(expiry)}`, 'utf8').toString('base64url');
      return `${payload}.${mac(signer, payload).toString('base64url')}`;
    },

    verify(token, purpose) {
      if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !TOKEN_RE.test(token)) return null;
      const dot = token.indexOf('.');
      const payload = token.slice(0, dot);
      const signature = token.slice(dot + 1);
      const provided = Buffer.from(signature, 'base64url');
      // Canonical encoding only: the last character's spare bits must not give a second valid token.
      if (provided.length !== 32 || provided.toString('base64url') !== signature) return null;
      let ok = false;
      // Every secret is checked (no early exit) so timing does not reveal which one matched.
      for (const secret of secrets) {
        if (timingSafeEqual(mac(secret, payload), provided)) ok = true;
      }
      if (!ok) return null;
      const parts = Buffer.from(payload, 'base64url').toString('utf8').split('.');
      if (parts.length !== 3) return null;
      const [orderId = '', tokenPurpose, expiry = ''] = parts;
      if (tokenPurpose !== purpose || orderId.length === 0 || !/^\d{1,12}$/.test(expiry)) return null;
      if (Number(expiry) * 1000 <= now()) return null;
      return { orderId };
    },
  };
}
