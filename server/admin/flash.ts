/**
 * Flash messages after a redirect, carried in the query string and signed, so nobody can craft
 * an admin link that shows staff a message the admin never wrote. No session store needed.
 */
import { createHmacSigner } from '../http/hmac.js';

export type FlashKind = 'ok' | 'error' | 'warning';
export interface Flash {
  kind: FlashKind;
  text: string;
}

const MAX_TEXT = 500;

export interface FlashCodec {
  /** `flash=<payload>.<mac>` to append to a redirect URL. */
  encode(flash: Flash): string;
  /** The flash of a request's `flash` query value, or null when absent, malformed or forged. */
  decode(value: unknown): Flash | null;
}

export function createFlashCodec(secret: string): FlashCodec {
  const hmac = createHmacSigner({ secrets: secret, context: 'checkout-kit/admin-flash/v1' });
  return {
    encode(flash) {
      const payload = Buffer.from(JSON.stringify({ k: flash.kind, t: flash.text.slice(0, MAX_TEXT) })).toString('base64url');
      return `flash=${payload}.${hmac.sign(payload)}`;
    },
    decode(value) {
      if (typeof value !== 'string' || value.length > 2000) return null;
      const [payload, provided, ...rest] = value.split('.');
      if (payload === undefined || provided === undefined || rest.length > 0) return null;
      if (!hmac.verify(payload, provided)) return null;
      try {
        const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { k?: unknown; t?: unknown };
        const kind = parsed.k === 'ok' || parsed.k === 'error' || parsed.k === 'warning' ? parsed.k : null;
        return kind !== null && typeof parsed.t === 'string' ? { kind, text: parsed.t } : null;
      } catch {
        return null;
      }
    },
  };
}
