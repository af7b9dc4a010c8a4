import { describe, expect, it } from 'vitest';
import { createFlashCodec } from '../../../server/admin/flash.js';

const codec = createFlashCodec('flash-test-secret-0123456789abcdef0123');

function valueOf(encoded: string): string {
  return decodeURIComponent(encoded.replace(/^flash=/, ''));
}

describe('signed flash messages', () => {
  it('round-trips kind and text', () => {
    const value = valueOf(codec.encode({ kind: 'warning', text: 'Outcome unknown — use query sync' }));
    expect(codec.decode(value)).toEqual({ kind: 'warning', text: 'Outcome unknown — use query sync' });
  });

  it('refuses forged, altered, foreign-key and malformed values', () => {
    const value = valueOf(codec.encode({ kind: 'ok', text: 'Refunded 10.00 USD' }));
    const [payload, mac] = value.split('.');
    const forged = Buffer.from(JSON.stringify({ k: 'ok', t: 'Call 555-0100 to verify your account' })).toString('base64url');
    expect(codec.decode(`${forged}.${mac}`)).toBeNull();
    expect(codec.decode(`${payload}.${mac?.slice(0, -2)}AA`)).toBeNull();
    expect(createFlashCodec('another-secret-0123456789abcdef0123456').decode(value)).toBeNull();
    for (const bad of [undefined, 42, '', 'x', 'a.b.c', `${payload}`, ['a']]) expect(codec.decode(bad)).toBeNull();
  });

  it('bounds the text', () => {
    const value = valueOf(codec.encode({ kind: 'error', text: 'x'.repeat(2000) }));
    expect(codec.decode(value)?.text).toHaveLength(500);
  });
});
