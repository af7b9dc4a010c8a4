/**
 * The figures `npm run bench` writes, what each means, and the targets they are held to. The
 * runner's table and docs/performance.md are both made from this list.
 */

export interface BenchResults {
  baseline_rps: number;
  durable_baseline_rps: number;
  durable_ratio: number;
  notify_rps: number;
  notify_ratio: number;
  notify_confirmed_rps: number;
  notify_confirmed_ratio: number;
  pay_direct_rps: number;
  pay_direct_ratio: number;
  render_rps: number;
  render_ratio: number;
  p99_ms_baseline: number;
  p99_ms_notify: number;
  sweep_10k_s: number;
  sweep_100k_s: number;
  sweep_scaling: number;
  batch_capture_1000_s: number;
  rss_mb_peak: number;
  rss_mb_idle: number;
  heap_mb_live_max: number;
  metrics_notify_cost_pct: number;
}

/** Every field above; the smoke test checks each is a finite number. */
export const RESULT_FIELDS: readonly (keyof BenchResults)[] = [
  'baseline_rps', 'durable_baseline_rps', 'durable_ratio', 'notify_rps', 'notify_ratio', 'notify_confirmed_rps', 'notify_confirmed_ratio',
  'pay_direct_rps', 'pay_direct_ratio', 'render_rps', 'render_ratio', 'p99_ms_baseline', 'p99_ms_notify',
  'sweep_10k_s', 'sweep_100k_s', 'sweep_scaling', 'batch_capture_1000_s', 'rss_mb_peak', 'rss_mb_idle', 'heap_mb_live_max',
  'metrics_notify_cost_pct',
];

export interface Row {
  field: keyof BenchResults;
  what: string;
  value: number;
  /** e.g. "≥ 0.5"; null when the figure has no target. */
  target: string | null;
  meets: boolean | null;
}

interface Target {
  op: '>=' | '<=';
  limit: (r: BenchResults) => number;
  text: (r: BenchResults) => string;
}

const atLeast = (n: number): Target => ({ op: '>=', limit: () => n, text: () => `≥ ${String(n)}` });
const atMost = (n: number): Target => ({ op: '<=', limit: () => n, text: () => `≤ ${String(n)}` });

const FIGURES: readonly { field: keyof BenchResults; what: string; target?: Target }[] = [
  { field: 'baseline_rps', what: 'bare Express 5 route: parse the form body, answer OK (req/s)' },
  { field: 'durable_baseline_rps', what: 'the baseline route storing each body as one durable SQLite row, as the kit writes (req/s)' },
  { field: 'durable_ratio', what: 'durable baseline / baseline: the most a route that waits for one durable write can reach here' },
  { field: 'notify_rps', what: 'notify: raw body, signature, dedupe, transition, event in SQLite; no query (req/s)' },
  { field: 'notify_ratio', what: 'notify / baseline', target: atLeast(0.5) },
  { field: 'notify_confirmed_rps', what: 'notify confirmed by a query to the sandbox (req/s)' },
  { field: 'notify_confirmed_ratio', what: 'notify confirmed / baseline' },
  { field: 'pay_direct_rps', what: 'card pay route incl. the sandbox authorise round trip (req/s)' },
  { field: 'pay_direct_ratio', what: 'pay direct / baseline', target: atLeast(0.2) },
  { field: 'render_rps', what: 'hosted pay: mark submitted, pending, render the auto-submit page (req/s)' },
  { field: 'render_ratio', what: 'render / baseline', target: atLeast(0.6) },
  { field: 'p99_ms_baseline', what: 'p99 latency of the baseline (ms)' },
  {
    field: 'p99_ms_notify',
    what: 'p99 latency of notify at the same concurrency (ms)',
    target: { op: '<=', limit: (r) => 3 * r.p99_ms_baseline, text: (r) => `≤ 3 × baseline (${format(3 * r.p99_ms_baseline)})` },
  },
  { field: 'sweep_10k_s', what: 'sweeper settles 10,000 pending orders by batched queries (s)', target: atMost(5) },
  { field: 'sweep_100k_s', what: 'sweeper settles 100,000 pending orders (s)' },
  { field: 'sweep_scaling', what: 'sweep_100k_s / sweep_10k_s (10 = linear)', target: atMost(12) },
  { field: 'batch_capture_1000_s', what: 'client.batch.capture of 1,000 authorised orders, 20 requests of 50 (s)' },
  { field: 'rss_mb_peak', what: 'peak resident memory of the server process (MB)', target: atMost(200) },
  { field: 'rss_mb_idle', what: 'the same process started, before any load (MB)' },
  { field: 'heap_mb_live_max', what: 'largest live JavaScript heap after a full GC between runs (MB)' },
  {
    field: 'metrics_notify_cost_pct',
    what: "metrics and span calls of one applied notification, timed in-process, as a share of one notify request at notify_rps (%)",
    target: atMost(5),
  },
];

export function format(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function rows(results: BenchResults): Row[] {
  return FIGURES.map(({ field, what, target }) => {
    const value = results[field];
    if (target === undefined) return { field, what, value, target: null, meets: null };
    const limit = target.limit(results);
    return { field, what, value, target: target.text(results), meets: target.op === '>=' ? value >= limit : value <= limit };
  });
}

/** A fixed-width text table for the terminal. */
export function textTable(results: BenchResults): string {
  const lines = rows(results).map((r) => [r.field, format(r.value), r.target ?? '', r.meets === null ? '' : r.meets ? 'yes' : 'NO']);
  const header = ['figure', 'value', 'target', 'meets'];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const pad = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [pad(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(pad)].join('\n');
}

/** A Markdown table for the docs. */
export function markdownTable(results: BenchResults): string {
  const lines = rows(results).map(
    (r) => `| \`${r.field}\` | ${r.what} | ${format(r.value)} | ${r.target ?? '—'} | ${r.meets === null ? '' : r.meets ? 'yes' : '**no**'} |`,
  );
  return ['| figure | what | value | target | meets |', '|---|---|---:|---|---|', ...lines].join('\n');
}
