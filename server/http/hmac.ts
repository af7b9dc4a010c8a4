/**
 * HMAC-SHA256 signing with a rotation list, shared by the signed URL tokens, the CSRF field and
 * the admin's flash messages: the first secret signs, any verifies. With `context`, each secret is
 * first turned into a key of its own (HMAC(secret, context)), so one secret can serve several
 * purposes without a MAC made for one being accepted by another.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const MAC_BYTES = 32;

export interface HmacSigner {
  /** The MAC of `data` under the first secret, base64url (43 characters). */
  sign(data: string): string;
  /**
   * True when `mac` is the canonical base64url MAC of `data` under any of the secrets. Every
   * secret is tried (no early exit), in constant time, so timing reveals neither which one matched
   * nor how much of the MAC did.
   */
  verify(data: string, mac: string): boolean;
}

export interface HmacSignerOptions {
  /** One secret or several (rotation): the first signs, any verifies. Empty strings are ignored. */
  secrets: string | readonly string[];
  /** Domain separation label; the secrets are used as they are when absent. */
  context?: string;
}

export function createHmacSigner(options: HmacSignerOptions): HmacSigner {
  const secrets = (typeof options.secrets === 'string' ? [options.secrets] : [...options.secrets]).filter((s) => s.length > 0);
  const { context } = options;
  const keys: (string | Buffer)[] = context === undefined ? secrets : secrets.map((s) => createHmac('sha256', s).update(context).digest());
  const signer = keys[0];
  if (signer === undefined) throw new TypeError('an HMAC signer needs at least one non-empty secret');
  const mac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

  return {
    sign(data) {
      return mac(signer, data).toString('base64url');
    },
    verify(data, provided) {
      if (typeof provided !== 'string') return false;
      const given = Buffer.from(provided, 'base64url');
      // Canonical encoding only: the last character's spare bits must not give a second valid MAC.
      if (given.length !== MAC_BYTES || given.toString('base64url') !== provided) return false;
      let ok = false;
      for (const key of keys) {
        if (timingSafeEqual(mac(key, data), given)) ok = true;
      }
      return ok;
    },
  };
}
