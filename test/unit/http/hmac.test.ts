import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createHmacSigner } from '../../../server/http/hmac.js';

describe('createHmacSigner', () => {
  it('signs with the secret itself when no context is given (the URL tokens issued so far stay valid)', () => {
    const signer = createHmacSigner({ secrets: 'k1' });
    expect(signer.sign('payload')).toBe(createHmac('sha256', 'k1').update('payload').digest('base64url'));
  });

  it('with a context, signs with a key derived from the secret, and a MAC made for one context fails in another', () => {
    const csrf = createHmacSigner({ secrets: 'k1', context: 'checkout-kit/csrf/v1' });
    const key = createHmac('sha256', 'k1').update('checkout-kit/csrf/v1').digest();
    expect(csrf.sign('data')).toBe(createHmac('sha256', key).update('data').digest('base64url'));
    const flash = createHmacSigner({ secrets: 'k1', context: 'checkout-kit/admin-flash/v1' });
    expect(flash.verify('data', csrf.sign('data'))).toBe(false);
    expect(createHmacSigner({ secrets: 'k1' }).verify('data', csrf.sign('data'))).toBe(false);
  });

  it('verifies the MAC of the same data only', () => {
    const signer = createHmacSigner({ secrets: ['k1'] });
    const mac = signer.sign('a');
    expect(signer.verify('a', mac)).toBe(true);
    expect(signer.verify('b', mac)).toBe(false);
    expect(signer.verify('a', '')).toBe(false);
    expect(signer.verify('a', mac.slice(0, -1))).toBe(false);
    expect(signer.verify('a', `${mac}A`)).toBe(false);
  });

  it('rotation: the first secret signs, every listed secret verifies, a dropped one no longer does', () => {
    const old = createHmacSigner({ secrets: ['old'] });
    const rotated = createHmacSigner({ secrets: ['new', 'old'] });
    expect(rotated.sign('x')).toBe(createHmacSigner({ secrets: 'new' }).sign('x'));
    expect(rotated.verify('x', old.sign('x'))).toBe(true);
    expect(createHmacSigner({ secrets: ['new'] }).verify('x', old.sign('x'))).toBe(false);
  });

  it('refuses a non-canonical encoding of a valid MAC (the spare bits of the last character)', () => {
    const signer = createHmacSigner({ secrets: 'k1' });
    const mac = signer.sign('a');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(mac.slice(-1));
    // 43 characters carry 258 bits for 256: the last character's two low bits are spare.
    const twin = mac.slice(0, -1) + alphabet.charAt(last ^ 1);
    expect(Buffer.from(twin, 'base64url').equals(Buffer.from(mac, 'base64url'))).toBe(true);
    expect(signer.verify('a', twin)).toBe(false);
  });

  it('ignores empty secrets and needs at least one non-empty one', () => {
    expect(() => createHmacSigner({ secrets: [] })).toThrow(TypeError);
    expect(() => createHmacSigner({ secrets: ['', ''] })).toThrow(TypeError);
    expect(createHmacSigner({ secrets: ['', 'k'] }).sign('a')).toBe(createHmacSigner({ secrets: 'k' }).sign('a'));
  });
});
