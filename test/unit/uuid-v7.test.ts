import { describe, expect, it } from 'vitest';
import { uuidV7 } from '../../server/uuid-v7.js';

describe('uuidV7', () => {
  it('is a version 7, RFC 9562 variant UUID carrying the millisecond it was made', () => {
    const at = Date.UTC(2026, 10, 21, 8, 30, 0, 123);
    const id = uuidV7(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('sorts by time as text, and never repeats', () => {
    const ids = Array.from({ length: 5000 }, (_v, i) => uuidV7(1_700_000_000_000 + Math.floor(i / 10)));
    expect(new Set(ids).size).toBe(ids.length);
    const firstOfEachMs = ids.filter((_v, i) => i % 10 === 0);
    expect([...firstOfEachMs].sort()).toEqual(firstOfEachMs);
  });
});
