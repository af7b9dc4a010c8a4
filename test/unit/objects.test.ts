/** `merged` builds what `{ ...a, ...b }` builds, `__proto__` keys included. */
import { describe, expect, it } from 'vitest';
import { merged } from '../../server/objects.js';

describe('merged', () => {
  it('copies own keys in order, later sources winning, as a spread does', () => {
    const a = { x: 1, y: { deep: true }, z: undefined };
    const b = { y: 2, w: 'new' };
    const out = merged(a, b);
    expect(out).toStrictEqual({ ...a, ...b });
    expect(merged(null, b)).toStrictEqual({ ...b });
    expect(merged(a, undefined)).toStrictEqual({ ...a });
    expect(Object.keys(out)).toEqual(Object.keys({ ...a, ...b }));
    // A copy, one level deep: the sources are left alone and nested values are shared.
    expect(a).toStrictEqual({ x: 1, y: { deep: true }, z: undefined });
    expect(merged(a).y).toBe(a.y);
  });

  it('keeps a __proto__ key as data, never as the prototype', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as Record<string, unknown>;
    const out = merged(hostile, { more: 2 });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(out)).toBe(JSON.stringify({ ...hostile, more: 2 }));
  });

  it('skips inherited and non-enumerable keys, as a spread does', () => {
    const source = Object.create({ inherited: 1 }) as Record<string, unknown>;
    Object.defineProperty(source, 'hidden', { value: 2, enumerable: false });
    source.own = 3;
    expect(merged(source)).toStrictEqual({ ...source });
  });
});
