/**
 * Plain-object merging for hot paths. On Node 20 (V8 11.3) an object made by a spread gets a
 * hidden class of its own, so every key added to it after the spread (`{ ...a, key }`,
 * `{ ...a, ...b }`) costs about a microsecond and leaves garbage; keys assigned to an object
 * made by `{}` reuse shared hidden classes and cost a few nanoseconds.
 */

function copyInto(out: Record<string, unknown>, source: object | null | undefined, skipUndefined = false): void {
  if (source === null || source === undefined) return;
  for (const key of Object.keys(source)) {
    const value = (source as Record<string, unknown>)[key];
    if (skipUndefined && value === undefined) continue;
    if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  }
}

/**
 * A new plain object with the own enumerable keys of `a`, then of `b`, as `{ ...a, ...b }` builds
 * it: `b` wins, an undefined or null source adds nothing, and a `__proto__` key is copied as data
 * (never as the prototype).
 */
export function merged<A extends object, B extends object = object>(a: A | null | undefined, b?: B | null): A & B {
  const out: Record<string, unknown> = {};
  copyInto(out, a);
  copyInto(out, b);
  return out as A & B;
}

/**
 * `merged(a, b)` for stored JSON: a key of `b` whose value is undefined leaves `a`'s value, as a
 * JSON patch would (JSON has no undefined), so every store merges `data` alike.
 */
export function mergedJson(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  copyInto(out, a);
  copyInto(out, b, true);
  return out;
}
