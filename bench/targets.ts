/**
 * The figures `npm run bench` writes, what each means, and the targets they are held to. The
 * runner's table and docs/performance.md are both made from this list.
 */

export interface BenchResults {
  baseline_rps: number;
  durable_baseline_rps: number;
  durable_ratio: number;
  gateway_baseline_rps: number;
  gateway_ratio: number;
  notify_rps: number;
  notify_ratio: number;
  notify_store_rps: number;
  notify_store_ratio: number;
  notify_over_store: number;
  render_rps: number;
  render_ratio: number;
  render_store_rps: number;
  render_store_ratio: number;
  render_over_store: number;
  pay_direct_rps: number;
  pay_direct_ratio: number;
  pay_direct_store_rps: number;
  pay_direct_store_ratio: number;
  pay_direct_over_store: number;
  notify_confirmed_rps: number;
  notify_confirmed_ratio: number;
  cpu_us_baseline: number;
  cpu_us_durable_baseline: number;
  cpu_us_gateway_baseline: number;
  cpu_us_notify: number;
  cpu_ratio_notify: number;
  cpu_us_notify_store: number;
  cpu_us_render: number;
  cpu_us_render_store: number;
  cpu_ratio_render: number;
  cpu_us_pay_direct: number;
  cpu_us_pay_direct_store: number;
  cpu_ratio_pay_direct: number;
  cpu_us_gateway_pay_direct: number;
  cpu_us_notify_confirmed: number;
  cpu_ratio_notify_confirmed: number;
  p99_ms_baseline: number;
  p99_ms_durable_baseline: number;
  p99_ms_notify: number;
  pg_durable_baseline_rps: number;
  pg_gateway_baseline_rps: number;
  notify_pg_rps: number;
  notify_pg_ratio: number;
  cpu_ratio_notify_pg: number;
  pay_direct_pg_rps: number;
  pay_direct_pg_ratio: number;
  cpu_ratio_pay_direct_pg: number;
  sweep_10k_s: number;
  sweep_100k_s: number;
  sweep_scaling: number;
  batch_capture_1000_s: number;
  rss_mb_peak: number;
  rss_mb_idle: number;
  heap_mb_live_max: number;
  metrics_notify_cost_pct: number;
}

/** The PostgreSQL figures: measured only when the run is given a database (NaN otherwise). */
export const PG_FIELDS: readonly (keyof BenchResults)[] = [
  'pg_durable_baseline_rps', 'pg_gateway_baseline_rps', 'notify_pg_rps', 'notify_pg_ratio', 'cpu_ratio_notify_pg', 'pay_direct_pg_rps', 'pay_direct_pg_ratio', 'cpu_ratio_pay_direct_pg',
];

/** Every field above but the PostgreSQL ones; the smoke test checks each is a finite number. */
export const RESULT_FIELDS: readonly (keyof BenchResults)[] = [
  'baseline_rps', 'durable_baseline_rps', 'durable_ratio', 'gateway_baseline_rps', 'gateway_ratio', 'notify_rps', 'notify_ratio',
  'notify_store_rps', 'notify_store_ratio', 'notify_over_store', 'cpu_us_notify_store',
  'render_rps', 'render_ratio', 'render_store_rps', 'render_store_ratio', 'render_over_store', 'cpu_us_render_store', 'pay_direct_rps', 'pay_direct_ratio',
  'pay_direct_store_rps', 'pay_direct_store_ratio', 'pay_direct_over_store', 'cpu_us_pay_direct_store', 'notify_confirmed_rps', 'notify_confirmed_ratio',
  'cpu_us_baseline', 'cpu_us_durable_baseline', 'cpu_us_gateway_baseline', 'cpu_us_notify', 'cpu_ratio_notify', 'cpu_us_render', 'cpu_ratio_render',
  'cpu_us_pay_direct', 'cpu_ratio_pay_direct', 'cpu_us_gateway_pay_direct', 'cpu_us_notify_confirmed', 'cpu_ratio_notify_confirmed',
  'p99_ms_baseline', 'p99_ms_durable_baseline', 'p99_ms_notify',
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
  { field: 'durable_baseline_rps', what: 'the same route storing each body as one durable SQLite row, as the kit writes (req/s)' },
  { field: 'durable_ratio', what: 'durable baseline / baseline: what one durable write costs here' },
  { field: 'gateway_baseline_rps', what: 'the durable route plus one keep-alive POST to a bare upstream (1 KB XML reply) and a second durable row, answering 303 (req/s)' },
  { field: 'gateway_ratio', what: 'gateway baseline / durable baseline: what one gateway round trip and a second write cost here' },
  { field: 'notify_rps', what: 'notify: raw body, signature, dedupe, transition, event in SQLite; no query (req/s)' },
  { field: 'notify_ratio', what: 'notify / durable baseline', target: atLeast(0.8) },
  { field: 'notify_store_rps', what: 'the store\'s part of notify alone: a bare route that reads the order by its number and writes the same transition and event through the kit\'s SQLite store (bench/store-floor.ts; req/s)' },
  { field: 'notify_store_ratio', what: 'that store part / durable baseline: the most notify_ratio can reach with the kit\'s data model' },
  { field: 'notify_over_store', what: 'notify / its store part, same round: what the kit\'s own work (signature, validation, engine) leaves of it' },
  { field: 'render_rps', what: 'hosted pay: mark submitted, pending, render the auto-submit page (req/s)' },
  { field: 'render_ratio', what: 'render / durable baseline', target: atLeast(0.6) },
  { field: 'render_store_rps', what: 'the store\'s part of render alone: a bare route that reads the order its pay token names and moves it to pending with the submission\'s data and dedupe key through the kit\'s SQLite store (bench/store-floor.ts; req/s)' },
  { field: 'render_store_ratio', what: 'that store part / durable baseline: the most render_ratio can reach with the kit\'s data model' },
  { field: 'render_over_store', what: 'render / its store part, same round: what the kit\'s own work (form, request, signing, page) leaves of it' },
  { field: 'pay_direct_rps', what: 'card pay route incl. the sandbox authorise round trip (req/s)' },
  { field: 'pay_direct_ratio', what: 'pay direct / gateway baseline', target: atLeast(0.6) },
  { field: 'pay_direct_store_rps', what: 'the store\'s part of pay direct alone: the gateway baseline\'s route doing pay direct\'s store work through the kit\'s SQLite store (the order its pay token names read, the submission, the baseline\'s upstream call, the answer\'s transition to paid; bench/store-floor.ts; req/s)' },
  { field: 'pay_direct_store_ratio', what: 'that store part / gateway baseline: the most pay_direct_ratio can reach with the kit\'s data model and a gateway as cheap as the bare upstream' },
  { field: 'pay_direct_over_store', what: 'pay direct / its store part, same round: what the kit\'s own work (form, card request, signing, XML reply) and the sandbox\'s CPU on the same cores leave of it' },
  { field: 'notify_confirmed_rps', what: 'notify confirmed by a query to the sandbox (req/s)' },
  { field: 'notify_confirmed_ratio', what: 'notify confirmed / gateway baseline', target: atLeast(0.6) },
  { field: 'cpu_us_baseline', what: 'server CPU per request, all threads, of the baseline (µs)' },
  { field: 'cpu_us_durable_baseline', what: 'the same, durable baseline (µs)' },
  { field: 'cpu_us_gateway_baseline', what: 'the same, gateway baseline (µs)' },
  { field: 'cpu_us_notify', what: 'the same, notify (µs)' },
  { field: 'cpu_ratio_notify', what: 'notify CPU / its durable baseline run\'s', target: atMost(2) },
  { field: 'cpu_us_notify_store', what: 'the same, the store part of notify alone (µs)' },
  { field: 'cpu_us_render', what: 'the same, render (µs)' },
  { field: 'cpu_us_render_store', what: 'the same, the store part of render alone (µs)' },
  { field: 'cpu_ratio_render', what: 'render CPU / its durable baseline run\'s', target: atMost(2) },
  { field: 'cpu_us_pay_direct', what: 'the same, pay direct (µs)' },
  { field: 'cpu_us_pay_direct_store', what: 'the same, the store part of pay direct alone (µs)' },
  { field: 'cpu_ratio_pay_direct', what: 'pay direct CPU / its gateway baseline run\'s', target: atMost(2) },
  { field: 'cpu_us_gateway_pay_direct', what: 'the gateway process\'s CPU per authorise during pay direct, all threads (µs; the sandbox, on the same cores)' },
  { field: 'cpu_us_notify_confirmed', what: 'the same, notify confirmed (µs; the sandbox runs in this process and counts too)' },
  { field: 'cpu_ratio_notify_confirmed', what: 'notify confirmed CPU / its gateway baseline run\'s', target: atMost(2) },
  { field: 'p99_ms_baseline', what: 'p99 latency of the baseline (ms)' },
  { field: 'p99_ms_durable_baseline', what: 'p99 latency of the durable baseline runs paired with notify (ms)' },
  {
    field: 'p99_ms_notify',
    what: 'p99 latency of notify at the same concurrency (ms)',
    target: { op: '<=', limit: (r) => 3 * r.p99_ms_durable_baseline, text: (r) => `≤ 3 × durable baseline (${format(3 * r.p99_ms_durable_baseline)})` },
  },
  { field: 'pg_durable_baseline_rps', what: 'durable baseline on PostgreSQL (local server): one INSERT per request (req/s)' },
  { field: 'pg_gateway_baseline_rps', what: 'gateway baseline on PostgreSQL (req/s)' },
  { field: 'notify_pg_rps', what: 'notify, orders in PostgreSQL (req/s)' },
  { field: 'notify_pg_ratio', what: 'notify on PostgreSQL / PostgreSQL durable baseline', target: atLeast(0.8) },
  { field: 'cpu_ratio_notify_pg', what: 'its CPU per request / its baseline run\'s', target: atMost(2) },
  { field: 'pay_direct_pg_rps', what: 'pay direct, orders in PostgreSQL (req/s)' },
  { field: 'pay_direct_pg_ratio', what: 'pay direct on PostgreSQL / PostgreSQL gateway baseline', target: atLeast(0.6) },
  { field: 'cpu_ratio_pay_direct_pg', what: 'its CPU per request / its baseline run\'s', target: atMost(2) },
  { field: 'sweep_10k_s', what: 'sweeper settles 10,000 pending orders by batched queries (s)', target: atMost(5) },
  { field: 'sweep_100k_s', what: 'sweeper settles 100,000 pending orders (s)' },
  { field: 'sweep_scaling', what: 'sweep_100k_s / sweep_10k_s (10 = linear)', target: atMost(12) },
  { field: 'batch_capture_1000_s', what: 'client.batch.capture of 1,000 authorised orders, 20 requests of 50 (s)' },
  { field: 'rss_mb_peak', what: 'peak resident memory of the server process, Node default flags (MB)', target: atMost(200) },
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
