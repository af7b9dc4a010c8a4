/** Reads Prometheus text format, enough for tests: `value(name, labels)` sums the matching samples. */
export interface Scrape {
  text: string;
  /** Sum of the samples named `name` whose labels include every given label (0 when none). */
  value(name: string, labels?: Record<string, string>): number;
}

const SAMPLE_RE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL_RE = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseScrape(text: string): Scrape {
  const samples = text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).flatMap((line) => {
    const m = SAMPLE_RE.exec(line);
    if (m === null) return [];
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL_RE)) labels[l[1]!] = l[2]!;
    return [{ name: m[1]!, labels, value: Number(m[3]) }];
  });
  return {
    text,
    value: (name, labels = {}) =>
      samples
        .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        .reduce((sum, s) => sum + s.value, 0),
  };
}

export async function scrape(url: string): Promise<Scrape> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  if (!(res.headers.get('content-type') ?? '').startsWith('text/plain')) throw new Error('not Prometheus text format');
  return parseScrape(await res.text());
}
