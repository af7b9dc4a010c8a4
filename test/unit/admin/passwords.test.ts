import { describe, expect, it } from 'vitest';
import { hashPassword, isPasswordHash, verifyPassword } from '../../../server/admin/sign-in/passwords.js';

describe('staff password hashing (scrypt)', () => {
  it('hashes with a fresh salt and the cost in the hash, and verifies only the right password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct');
    expect(isPasswordHash(a)).toBe(true);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('treats composed and decomposed accents alike (NFC)', async () => {
    const hash = await hashPassword('caf\u00e9-password');
    expect(await verifyPassword('cafe\u0301-password', hash)).toBe(true);
  });

  it('answers false for an unknown account (null) or an unreadable hash, after the same scrypt work', async () => {
    expect(await verifyPassword('anything', null)).toBe(false);
    expect(await verifyPassword('anything', 'plain-text')).toBe(false);
    // Costs outside the bounds are refused: a configured hash must not ask for gigabytes.
    const huge = (await hashPassword('x')).replace(/^scrypt\$15\$/, 'scrypt$30$');
    expect(isPasswordHash(huge)).toBe(false);
    expect(await verifyPassword('x', huge)).toBe(false);
    expect(isPasswordHash('scrypt$15$8$1$short$short')).toBe(false);
  });
});
