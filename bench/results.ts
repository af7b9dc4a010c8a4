/**
 * The bench's figures from its runs: each the median of its rounds, each ratio the median of the
 * rounds' ratios of a run over the run it was paired with just before it.
 */
import { metricsNotifyCostPct } from './metrics-cost.js';
import type { BaselineName, CaptureResult, Finished, LoadResult, Scenario, SweepResult } from './protocol.js';
import type { BenchResults } from './targets.js';

export interface Run {
  name: BaselineName | Scenario;
  round: number;
  load: LoadResult;
  finished?: Finished;
  /** The baseline run measured just before this scenario run. */
  baseline?: Run;
  /** CPU µs per request of the gateway process (the sandbox) over the run, when the scenario used it. */
  gatewayCpuUsPerRequest?: number;
}

export const median = (xs: number[]): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export interface Measured {
  runs: Run[];
  sweeps: SweepResult[];
  capture: CaptureResult;
  /** The two sweep sizes, smaller first. */
  sweepOrders: number[];
  rssPeakMb: number;
  rssIdleMb: number;
  liveHeapMb: number;
}

export async function figures({ runs, sweeps, capture, sweepOrders, rssPeakMb, rssIdleMb, liveHeapMb }: Measured): Promise<BenchResults> {
  const of = (name: Run['name']): Run[] => runs.filter((r) => r.name === name);
  const rpsOf = (name: Run['name']): number => median(of(name).map((r) => r.load.rps));
  const p99Of = (name: Run['name']): number => median(of(name).map((r) => r.load.p99Ms));
  const cpuOf = (name: Run['name']): number => median(of(name).map((r) => r.finished?.cpuUsPerRequest ?? NaN));
  // Each ratio pairs runs seconds apart, so a drift in the machine's load cancels out.
  const ratioOf = (name: Run['name']): number => median(of(name).filter((r) => r.baseline !== undefined).map((r) => r.load.rps / (r.baseline?.load.rps ?? NaN)));
  const cpuRatioOf = (name: Run['name']): number =>
    median(of(name).filter((r) => r.baseline !== undefined).map((r) => (r.finished?.cpuUsPerRequest ?? NaN) / (r.baseline?.finished?.cpuUsPerRequest ?? NaN)));
  /** The p99 of the baseline runs paired with `name`'s runs. */
  const pairedP99Of = (name: Scenario): number => median(of(name).map((r) => r.baseline?.load.p99Ms ?? NaN));
  /** A route's rate over its store part's in the same round (median of the rounds). */
  const overStore = (route: Scenario, store: Scenario): number =>
    median(of(route).map((r) => r.load.rps / (runs.find((s) => s.name === store && s.round === r.round)?.load.rps ?? NaN)));
  const sweepSeconds = (count: number | undefined): number => median(sweeps.filter((w) => w.orders === count).map((w) => w.seconds));
  const small = sweepSeconds(sweepOrders[0]);
  const large = sweepSeconds(sweepOrders[1]);
  return {
    baseline_rps: rpsOf('baseline'),
    durable_baseline_rps: rpsOf('durable_baseline'),
    durable_ratio: ratioOf('durable_baseline'),
    gateway_baseline_rps: rpsOf('gateway_baseline'),
    gateway_ratio: ratioOf('gateway_baseline'),
    notify_rps: rpsOf('notify'),
    notify_ratio: ratioOf('notify'),
    notify_store_rps: rpsOf('notify_store'),
    notify_store_ratio: ratioOf('notify_store'),
    notify_over_store: overStore('notify', 'notify_store'),
    render_rps: rpsOf('render'),
    render_ratio: ratioOf('render'),
    render_store_rps: rpsOf('render_store'),
    render_store_ratio: ratioOf('render_store'),
    render_over_store: overStore('render', 'render_store'),
    pay_direct_rps: rpsOf('pay_direct'),
    pay_direct_ratio: ratioOf('pay_direct'),
    pay_direct_store_rps: rpsOf('pay_direct_store'),
    pay_direct_store_ratio: ratioOf('pay_direct_store'),
    pay_direct_over_store: overStore('pay_direct', 'pay_direct_store'),
    notify_confirmed_rps: rpsOf('notify_confirmed'),
    notify_confirmed_ratio: ratioOf('notify_confirmed'),
    cpu_us_baseline: cpuOf('baseline'),
    cpu_us_durable_baseline: cpuOf('durable_baseline'),
    cpu_us_gateway_baseline: cpuOf('gateway_baseline'),
    cpu_us_notify: cpuOf('notify'),
    cpu_ratio_notify: cpuRatioOf('notify'),
    cpu_us_notify_store: cpuOf('notify_store'),
    cpu_us_render: cpuOf('render'),
    cpu_us_render_store: cpuOf('render_store'),
    cpu_ratio_render: cpuRatioOf('render'),
    cpu_us_pay_direct: cpuOf('pay_direct'),
    cpu_us_pay_direct_store: cpuOf('pay_direct_store'),
    cpu_ratio_pay_direct: cpuRatioOf('pay_direct'),
    cpu_us_gateway_pay_direct: median(of('pay_direct').map((r) => r.gatewayCpuUsPerRequest ?? NaN)),
    cpu_us_notify_confirmed: cpuOf('notify_confirmed'),
    cpu_ratio_notify_confirmed: cpuRatioOf('notify_confirmed'),
    p99_ms_baseline: p99Of('baseline'),
    p99_ms_durable_baseline: pairedP99Of('notify'),
    p99_ms_notify: p99Of('notify'),
    pg_durable_baseline_rps: rpsOf('pg_durable_baseline'),
    pg_gateway_baseline_rps: rpsOf('pg_gateway_baseline'),
    notify_pg_rps: rpsOf('notify_pg'),
    notify_pg_ratio: ratioOf('notify_pg'),
    cpu_ratio_notify_pg: cpuRatioOf('notify_pg'),
    pay_direct_pg_rps: rpsOf('pay_direct_pg'),
    pay_direct_pg_ratio: ratioOf('pay_direct_pg'),
    cpu_ratio_pay_direct_pg: cpuRatioOf('pay_direct_pg'),
    sweep_10k_s: small,
    sweep_100k_s: large,
    sweep_scaling: large / small,
    batch_capture_1000_s: capture.seconds,
    rss_mb_peak: rssPeakMb,
    rss_mb_idle: rssIdleMb,
    heap_mb_live_max: liveHeapMb,
    metrics_notify_cost_pct: await metricsNotifyCostPct(rpsOf('notify')),
  };
}
