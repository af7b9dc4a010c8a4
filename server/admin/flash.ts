/**
 * Flash messages after a redirect, carried in the query string and signed, so nobody can craft
 * an admin link that shows staff a message the admin never wrote. No session store needed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

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
  const key = createHmac('sha256', secret).update('checkout-kit/admin-flash/v1').digest();
  const mac = (payload: string): Buffer => createHmac('sha256', key).update(payload).digest();
  return {
    encode(flash) {
      const payload = Buffer.from(JSON.stringify({ k: flash.kind, t: flash.text.slice(0, MAX_TEXT) })).toString('base64url');
      return `flash=${payload}.${mac(payload).toString('base64url')}`;
    },
    decode(value) {
      if (typeof value !== 'string' || value.length > 2000) return null;
      const [payload, provided, ...rest] = value.split('.');
      if (payload === undefined || provided === undefined || rest.length > 0) return null;
      const given = Buffer.from(provided, 'base64url');
      const expected = mac(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
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
