import { describe, expect, it, vi } from 'vitest';

// The first two ids draw the same six characters; the second must be drawn again.
const draws = [...Array<number>(12).fill(0), ...Array<number>(6).fill(1)];
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, randomInt: (max: number) => draws.shift() ?? actual.randomInt(max) };
});

const { newTransactionId } = await import('../../../server/sandbox/ids.js');

describe('transaction ids', () => {
  it('are never issued twice in the same second', () => {
    const now = new Date(Date.UTC(2026, 0, 31, 10, 0, 0));
    const first = newTransactionId(now);
    const second = newTransactionId(now);
    expect(first).toBe('SBX20260131100000AAAAAA');
    expect(second).toBe('SBX20260131100000BBBBBB');
    expect(newTransactionId(new Date(Date.UTC(2026, 0, 31, 10, 0, 1)))).toMatch(/^SBX20260131100001[A-Z2-9]{6}$/);
  });
});
