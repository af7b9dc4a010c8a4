/**
 * Picks a language the catalogue has from an Accept-Language header or a locale tag: exact
 * tags first, then the base language (`nl-BE` → `nl`), in the browser's order of preference.
 */

interface Range {
  tag: string;
  q: number;
}

function ranges(header: string): Range[] {
  return header
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const q = qParam === undefined ? 1 : Number(qParam.slice(2));
      return { tag: tag.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((r) => r.tag !== '' && r.tag !== '*' && r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
}

/** The best of `available` for `header` (an Accept-Language value or a single tag), or undefined. */
export function negotiateLocale(header: string, available: readonly string[]): string | undefined {
  const lower = new Map(available.map((l) => [l.toLowerCase(), l]));
  for (const { tag } of ranges(header)) {
    const exact = lower.get(tag);
    if (exact !== undefined) return exact;
    const base = lower.get(tag.split('-')[0] ?? '');
    if (base !== undefined) return base;
  }
  return undefined;
}
