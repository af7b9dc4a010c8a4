import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN_TTL_MS, TOKEN_PURPOSES, createUrlTokens } from '../../../server/checkout/tokens.js';

const SECRET_A = 'a'.repeat(32) + '-first-secret';
const SECRET_B = 'b'.repeat(32) + '-second-secret';
const ORDER = '3f1c2a4e-9b7d-4c1e-8f00-123456789abc';

function clock(start = Date.UTC(2030, 0, 1)): { now: () => number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => { t += ms; } };
}

describe('URL tokens', () => {
  it('round-trips every purpose with URL-safe characters only', () => {
    const tokens = createUrlTokens({ secrets: SECRET_A });
    for (const purpose of TOKEN_PURPOSES) {
      const token = tokens.sign(ORDER, purpose);
      expect(token).toMatch(/^[A-Za-z0-9_.-]+$/);
      expect(token).not.toContain('&');
      expect(encodeURIComponent(token)).toBe(token);
      expect(tokens.verify(token, purpose)).toEqual({ orderId: ORDER });
    }
  });

  it('refuses a token made for another purpose', () => {
    const tokens = createUrlTokens({ secrets: SECRET_A });
    expect(tokens.verify(tokens.sign(ORDER, 'result'), 'return')).toBeNull();
    expect(tokens.verify(tokens.sign(ORDER, 'return'), 'cancel')).toBeNull();
    expect(tokens.verify(tokens.sign(ORDER, 'pay'), 'result')).toBeNull();
  });

  it('refuses any tampered character of payload or signature', () => {
    const tokens = createUrlTokens({ secrets: SECRET_A });
    const token = tokens.sign(ORDER, 'return');
    for (let i = 0; i < token.length; i++) {
      if (token[i] === '.') continue;
      const swapped = token[i] === 'A' ? 'B' : 'A';
      const tampered = token.slice(0, i) + swapped + token.slice(i + 1);
      expect(tokens.verify(tampered, 'return')).toBeNull();
    }
    // Every other last character, including ones differing only in base64 padding bits.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const ch of alphabet) {
      if (ch === token.at(-1)) continue;
      expect(tokens.verify(token.slice(0, -1) + ch, 'return')).toBeNull();
    }
    expect(tokens.verify(`${token}x`, 'return')).toBeNull();
    expect(tokens.verify(token.slice(0, -1), 'return')).toBeNull();
    expect(tokens.verify('', 'return')).toBeNull();
    expect(tokens.verify('not a token', 'return')).toBeNull();
  });

  it('refuses a payload re-signed for another order without the secret', () => {
    const tokens = createUrlTokens({ secrets: SECRET_A });
    const sig = tokens.sign(ORDER, 'result').split('.')[1]!;
    const forgedPayload = Buffer.from(`other-order.result.${String(Math.floor(Date.now() / 1000) + 3600)}`).toString('base64url');
    expect(tokens.verify(`${forgedPayload}.${sig}`, 'result')).toBeNull();
    const wrongKeySig = createHmac('sha256', 'guess').update(forgedPayload).digest('base64url');
    expect(tokens.verify(`${forgedPayload}.${wrongKeySig}`, 'result')).toBeNull();
  });

  it('expires after the default TTL of each purpose, and honours an explicit TTL', () => {
    const c = clock();
    const tokens = createUrlTokens({ secrets: SECRET_A, now: c.now });
    const ret = tokens.sign(ORDER, 'return');
    const pay = tokens.sign(ORDER, 'pay');
    const short = tokens.sign(ORDER, 'result', 60_000);
    c.advance(61_000);
    expect(tokens.verify(short, 'result')).toBeNull();
    c.advance(DEFAULT_TOKEN_TTL_MS.pay);
    expect(tokens.verify(pay, 'pay')).toBeNull();
    expect(tokens.verify(ret, 'return')).toEqual({ orderId: ORDER });
    c.advance(DEFAULT_TOKEN_TTL_MS.return);
    expect(tokens.verify(ret, 'return')).toBeNull();
    expect(DEFAULT_TOKEN_TTL_MS).toEqual({ pay: 86_400_000, return: 604_800_000, cancel: 604_800_000, result: 2_592_000_000 });
  });

  it('rotates secrets: the first signs, every listed one verifies, a dropped one stops verifying', () => {
    const old = createUrlTokens({ secrets: [SECRET_A] });
    const rotated = createUrlTokens({ secrets: [SECRET_B, SECRET_A] });
    const afterRotation = createUrlTokens({ secrets: [SECRET_B] });
    const oldToken = old.sign(ORDER, 'return');
    const newToken = rotated.sign(ORDER, 'return');
    expect(rotated.verify(oldToken, 'return')).toEqual({ orderId: ORDER });
    expect(afterRotation.verify(newToken, 'return')).toEqual({ orderId: ORDER });
    expect(afterRotation.verify(oldToken, 'return')).toBeNull();
    expect(old.verify(newToken, 'return')).toBeNull();
  });

  it('refuses to be built without a secret', () => {
    expect(() => createUrlTokens({ secrets: [] })).toThrow(TypeError);
    expect(() => createUrlTokens({ secrets: '' })).toThrow(TypeError);
  });
});
