/**
 * Messages between the benchmark runner and its two kinds of child process: the server under
 * test (bench/host.ts, IPC) and the load generator (bench/load.ts, one run per process).
 */

import type { SweepReport } from '../server/orders/sweeper.js';
import type { CaptureMode } from '../server/sandbox/types.js';

/** One HTTP request the load generator sends. */
export interface LoadRequest {
  method: 'POST' | 'GET';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export type Scenario = 'notify' | 'notify_store' | 'notify_confirmed' | 'pay_direct' | 'pay_direct_store' | 'render' | 'render_store' | 'notify_pg' | 'pay_direct_pg';
export const SCENARIOS: readonly Scenario[] = ['notify', 'notify_store', 'notify_confirmed', 'pay_direct', 'pay_direct_store', 'render', 'render_store', 'notify_pg', 'pay_direct_pg'];
/** The routes whose store part is measured alone (bench/store-floor.ts). */
export type StoreFloor = 'notify' | 'render' | 'pay_direct';
/** The store-part scenario of each route that has one, and the route it belongs to. */
export const STORE_FLOORS: Readonly<Partial<Record<Scenario, StoreFloor>>> = { notify_store: 'notify', render_store: 'render', pay_direct_store: 'pay_direct' };

/** The baseline servers, each the one before plus one step (bench/baseline.ts). */
export type BaselineName = 'baseline' | 'durable_baseline' | 'gateway_baseline' | 'pg_durable_baseline' | 'pg_gateway_baseline';

/** A PostgreSQL database and the schema a run owns in it. */
export interface PgTarget {
  url: string;
  schema: string;
}

/** The simple alternatives the benchmark can run instead of the kit's machinery (run.ts --variant). */
export interface HostVariant {
  /** The SQLite store with `backgroundSync` and `backgroundCheckpoints` off (SQLite's FULL sync and auto checkpoint). */
  sqliteSimple?: boolean;
  /** The gateway client's `fetch` option instead of its own node:http transport. */
  transport?: 'undici' | 'fetch';
}

/** What bench/baseline.ts serves (its first argument, JSON). */
export interface BaselineConfig {
  kind: 'bare' | 'durable' | 'gateway';
  /** Where the durable rows go; `simple`: SQLite's own FULL sync and auto checkpoint instead of the kit's write path. */
  store?: { sqlite: string; simple?: boolean } | { pg: string; schema: string };
  /** Origin of bench/upstream.ts (gateway kind). */
  upstream?: string;
}

/** What the seeder prepares in `dir` before the server opens it. */
export interface SeedJob {
  dir: string;
  kind: 'notify' | 'pay_direct' | 'render' | 'sweep' | 'capture';
  count: number;
  /** The kit's orders go to this PostgreSQL schema instead of SQLite in `dir`. */
  pg?: PgTarget;
}

export interface SeedOutput {
  /** JSON file holding LoadRequest[]. */
  requestsFile?: string;
  /** JSON file holding the batch capture's input orders. */
  captureFile?: string;
}

/**
 * `dir`: a directory the seeder filled. `gatewayUrl`: the gateway process's sandbox over that
 * directory's ledger, or null to run the sandbox inside the server under test.
 */
export type HostCommand =
  | { cmd: 'prepare'; scenario: Scenario; dir: string; gatewayUrl: string | null; pg?: PgTarget }
  | { cmd: 'finish' }
  | { cmd: 'sweep'; dir: string; count: number; gatewayUrl: string | null }
  | { cmd: 'capture'; dir: string; captureFile: string; gatewayUrl: string | null }
  /** `collect`: run a full GC first and report the live heap (between windows only). */
  | { cmd: 'memory'; collect?: boolean }
  /** Baseline only: CPU µs per request since the last `cpu` command ({ cpuUsPerRequest }). */
  | { cmd: 'cpu' }
  | { cmd: 'exit' };

/** Commands to the gateway process (bench/gateway.ts). */
export type GatewayCommand =
  | { cmd: 'open'; dir: string; captureMode: CaptureMode; dropNotifications: boolean }
  /** CPU per request of the gateway process since the last `cpu` command (GatewayCpu). */
  | { cmd: 'cpu' }
  | { cmd: 'close' }
  | { cmd: 'memory' }
  | { cmd: 'exit' };

export interface GatewayCpu {
  /** User and system CPU of the whole process (every thread) per request received, µs. */
  cpuUsPerRequest: number;
  requests: number;
}

export interface OpenedGateway {
  /** Base URL of the sandbox's API. */
  url: string;
}

export interface Prepared {
  /** Origin the requests go to. */
  url: string;
  /** The status every request should get. */
  expectStatus: number;
}

/** What a scenario left behind, checked after the load: proof the work was really done. */
export interface Finished {
  /** Orders that reached the state the scenario drives them to. */
  completed: number;
  /** Orders by state, for the log. */
  states: Record<string, number>;
  /**
   * CPU time of the server process (user + system, every thread) per request it handled from
   * prepare to finish, warm-up included, in µs: steadier than a rate on a busy machine.
   */
  cpuUsPerRequest: number;
}

export interface SweepResult {
  seconds: number;
  orders: number;
  settled: number;
  queries: number;
  runs: number;
  /** The sweeper's report of each run. */
  reports: SweepReport[];
}

export interface CaptureResult {
  seconds: number;
  orders: number;
  captured: number;
  requests: number;
}

export interface MemoryResult {
  /** Peak resident set size of the host process so far (getrusage maxrss), MB. */
  rssPeakMb: number;
  rssNowMb: number;
  /** V8 heap committed now, MB: what of the RSS is JavaScript. */
  heapTotalMb: number;
  /** Live V8 heap after a full GC, MB (null unless asked to collect). */
  liveHeapMb: number | null;
  /**
   * The highest RSS sampled (the kernel's peak, polled every 500 ms) since the last collecting ask, MB, and the V8 heap
   * spaces at that moment: which part of a run sets the process's peak, and whether it is young
   * objects, old ones or the rest of the process; `partsMb` splits that RSS (file_backed,
   * anonymous, and of the anonymous: v8_heap_resident, array_buffers, native_other). Absent from
   * the baselines and the gateway.
   */
  window?: { rssPeakMb: number; heapMb: Record<string, number>; partsMb: Record<string, number> };
}

export type HostReply<T = unknown> = { id: number; ok: true; value: T } | { id: number; ok: false; error: string };

export interface LoadJob {
  url: string;
  requestsFile: string;
  connections: number;
  /** Measured seconds. */
  duration: number;
  /** Seconds of warm-up before measuring (same connections, same request list). */
  warmup: number;
}

export interface LoadResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  seconds: number;
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
  /** Requests sent after the list ran out (repeats of its last request), stopping the run. */
  overrun: number;
}
