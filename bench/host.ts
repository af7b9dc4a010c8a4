/**
 * The server under test, in its own process: it answers the runner's commands over IPC. Each
 * scenario opens a fresh fixture (the kit, and the sandbox when it runs in this process) over
 * files the seeder filled, and is checked afterwards, so no run inherits another's orders. The
 * sweep and the batch capture are timed here too, so the process's peak memory covers every part
 * of the run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';
import type { CaptureOrderInput } from '../server/gateway/operations/batch.js';
import { BATCH_LIMITS } from '../server/gateway/schemas/batch.js';
import type { SweepReport } from '../server/orders/sweeper.js';
import { startFixture, type Fixture } from './fixture.js';
import type { CaptureResult, Finished, HostCommand, HostVariant, MemoryResult, PgTarget, Prepared, Scenario, SweepResult } from './protocol.js';
import { STORE_FLOORS } from './protocol.js';
import { serveCommands } from './serve-commands.js';

/** When set, a V8 CPU profile of each measured window is written there (what --cpu-prof gives, minus start-up). */
const profileDir = process.argv[2] === '' ? undefined : process.argv[2];
/** The machinery under comparison (run.ts --variant): the simple alternative instead of the kit's layer. */
const variant = JSON.parse(process.argv[3] ?? '{}') as HostVariant;
// Loaded only for that comparison: the full undici (fetch, websocket…) is no part of a shop's heap.
const gatewayFetch = variant.transport === undefined ? undefined : await (await import('./transports.js')).transportFetch(variant.transport);
const sqlite = variant.sqliteSimple === true ? { backgroundSync: false, backgroundCheckpoints: false } : undefined;
/**
 * With --profile-promoted: instead of CPU, a sampling heap profile of what survived the young
 * generation (promoted to the old one, whether or not a full GC collected it later): what makes
 * the old generation, and the RSS peak, grow under load.
 */
const promotedOnly = process.argv[4] === 'promoted';
const inspector = profileDir === undefined ? null : new Session();
inspector?.connect();
/** The state each scenario moves its orders to. */
const TARGET_STATE: Record<Scenario, string> = { notify: 'paid', notify_store: 'paid', notify_confirmed: 'paid', pay_direct: 'paid', pay_direct_store: 'paid', render: 'pending', render_store: 'pending', notify_pg: 'paid', pay_direct_pg: 'paid' };

let active: { fixture: Fixture; scenario: Scenario; cpu: NodeJS.CpuUsage } | null = null;
let windows = 0;

async function profileStart(): Promise<void> {
  if (inspector === null) return;
  if (promotedOnly) {
    await inspector.post('HeapProfiler.enable');
    // Node 20's typings predate the two include flags; V8 11.3 takes them.
    await inspector.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false } as never);
    return;
  }
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.start');
}

async function profileStop(name: string): Promise<void> {
  if (inspector === null || profileDir === undefined) return;
  if (promotedOnly) {
    const { profile } = await inspector.post('HeapProfiler.stopSampling');
    writeFileSync(join(profileDir, `${name}-${String(++windows)}.heapprofile`), JSON.stringify(profile));
    return;
  }
  const { profile } = await inspector.post('Profiler.stop');
  writeFileSync(join(profileDir, `${name}-${String(++windows)}.cpuprofile`), JSON.stringify(profile));
}

const seconds = (since: bigint): number => Number(process.hrtime.bigint() - since) / 1e9;

async function prepare(scenario: Scenario, dir: string, gatewayUrl: string | null, pg: PgTarget | undefined): Promise<Prepared> {
  if (active !== null) await finish();
  const fixture = await startFixture({
    dir, gatewayUrl, confirmNotifications: scenario === 'notify_confirmed', storeFloor: STORE_FLOORS[scenario],
    ...(pg === undefined ? {} : { pg }), ...(sqlite === undefined ? {} : { sqlite }), ...(gatewayFetch === undefined ? {} : { gatewayFetch }),
  });
  globalThis.gc?.();
  await profileStart();
  active = { fixture, scenario, cpu: process.cpuUsage() };

  return { url: fixture.shopUrl, expectStatus: scenario.startsWith('pay_direct') ? 303 : 200 };
}

/** Waits for `promise`, at most `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Waits for the in-process sandbox's notifications still in flight, at most a few seconds. */
async function settleNotifications(fixture: Fixture): Promise<void> {
  if (fixture.inProcess !== null) await within(fixture.inProcess.sandbox.notifier.flush(), 5000);
}

async function finish(): Promise<Finished> {
  if (active === null) return { completed: 0, states: {}, cpuUsPerRequest: NaN };
  const { fixture, scenario, cpu } = active;
  active = null;
  await settleNotifications(fixture);
  await within(fixture.idle(), 5000);
  const used = process.cpuUsage(cpu);
  const cpuUsPerRequest = (used.user + used.system) / fixture.handled();
  await profileStop(scenario);
  const states = await fixture.countStates();
  await fixture.close();
  return { completed: states[TARGET_STATE[scenario]] ?? 0, states, cpuUsPerRequest };
}

async function sweep(dir: string, count: number, gatewayUrl: string | null): Promise<SweepResult> {
  const fixture = await startFixture({ dir, gatewayUrl });
  try {
    const reports: SweepReport[] = [];
    globalThis.gc?.();
    await profileStart();
    const started = process.hrtime.bigint();
    // Runs until a run finds nothing due (the second run normally claims nothing).
    while (reports.length < 50) {
      const report = await fixture.kit.sweeper.runOnce();
      reports.push(report);
      if (report.claimed === 0) break;
    }
    const elapsed = seconds(started);
    await profileStop(`sweep-${String(count)}`);
    const paid = (await fixture.countStates()).paid ?? 0;
    if (paid !== count) throw new Error(`sweep settled ${String(paid)} of ${String(count)} orders: ${JSON.stringify(reports)}`);
    const sum = (key: 'queries' | 'settled'): number => reports.reduce((n, r) => n + r[key], 0);
    return { seconds: elapsed, orders: count, settled: sum('settled'), queries: sum('queries'), runs: reports.length, reports };
  } finally {
    await fixture.close();
  }
}

async function capture(dir: string, captureFile: string, gatewayUrl: string | null): Promise<CaptureResult> {
  const fixture = await startFixture({ dir, gatewayUrl, captureMode: 'manual' });
  try {
    const inputs = JSON.parse(readFileSync(captureFile, 'utf8')) as CaptureOrderInput[];
    globalThis.gc?.();
    await profileStart();
    const started = process.hrtime.bigint();
    const results = await fixture.kit.client.batch.capture(inputs);
    const elapsed = seconds(started);
    await profileStop('capture');
    const captured = results.filter((r) => r.ok).length;
    if (captured !== inputs.length) throw new Error(`batch capture captured ${String(captured)} of ${String(inputs.length)} orders`);
    return { seconds: elapsed, orders: inputs.length, captured, requests: Math.ceil(inputs.length / BATCH_LIMITS.capture) };
  } finally {
    await fixture.close();
  }
}

const MB = 1024 * 1024;

/**
 * The RSS peak of the current window, the heap spaces then and what the RSS was made of: pages of
 * files (Node's binary, shared libraries), anonymous pages (V8's heap and everything malloc holds:
 * native modules, SQLite, buffers, compiler zones) and, of those, V8's heap and the ArrayBuffers.
 */
let sampledPeak: { rss: number; heapMb: Record<string, number>; partsMb: Record<string, number> } = { rss: 0, heapMb: {}, partsMb: {} };

/** RssAnon and RssFile of /proc/self/status (Linux), bytes; empty elsewhere. */
function residentKinds(): { anon?: number; file?: number } {
  try {
    const status = readFileSync('/proc/self/status', 'latin1');
    const kb = (name: string): number | undefined => {
      const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
      return m === null ? undefined : Number(m[1]) * 1024;
    };
    const anon = kb('RssAnon');
    const file = kb('RssFile');
    return { ...(anon === undefined ? {} : { anon }), ...(file === undefined ? {} : { file }) };
  } catch {
    return {};
  }
}

/** Records the composition when `rss` is this window's highest so far. */
function sample(rss: number): void {
  if (rss <= sampledPeak.rss) return;
  const heapMb: Record<string, number> = {};
  let v8Physical = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_size > 0) heapMb[space.space_name.replace(/_space$/, '')] = Math.round(space.space_size / MB);
    v8Physical += space.physical_space_size;
  }
  const { anon, file } = residentKinds();
  const { arrayBuffers } = process.memoryUsage();
  const partsMb: Record<string, number> = { v8_heap_resident: Math.round(v8Physical / MB), array_buffers: Math.round(arrayBuffers / MB) };
  if (anon !== undefined) {
    partsMb.anonymous = Math.round(anon / MB);
    partsMb.native_other = Math.round((anon - v8Physical - arrayBuffers) / MB);
  }
  if (file !== undefined) partsMb.file_backed = Math.round(file / MB);
  sampledPeak = { rss, heapMb, partsMb };
}

// The kernel's own peak (getrusage) is polled and the composition read only when it rises; the
// peak figure itself is read at the end of each window, so the poll only times the composition.
// Reading the current RSS goes through /proc/self/stat, which waits on the process's memory
// map lock: under load, sampled every 50 ms, it held the server's event loop for about 2% of a
// notify or pay_direct profile, a cost no baseline paid. It is read once a second instead, for the
// windows that do not raise the process's peak. getrusage takes 3 µs idle but sums every thread's
// usage: polled every 50 ms under pay_direct's load it was 0.7% of the server's profile (about
// 360 µs a call), again unpaid by any baseline; every 500 ms it is a tenth of that.
let kernelPeak = 0;
setInterval(() => {
  const maxRss = process.resourceUsage().maxRSS * 1024;
  if (maxRss > kernelPeak) {
    kernelPeak = maxRss;
    sample(maxRss);
  }
}, 500).unref();
setInterval(() => {
  sample(process.memoryUsage.rss());
}, 1000).unref();

function memory(collect: boolean): MemoryResult {
  // Read before collecting: the GC must not lower the figures it is asked about.
  const { rss, heapTotal } = process.memoryUsage();
  const rssPeakMb = process.resourceUsage().maxRSS / 1024;
  let liveHeapMb: number | null = null;
  const sampled = { rssPeakMb: sampledPeak.rss / MB, heapMb: sampledPeak.heapMb, partsMb: sampledPeak.partsMb };
  if (collect) sampledPeak = { rss: 0, heapMb: {}, partsMb: {} };
  if (collect && globalThis.gc) {
    globalThis.gc();
    liveHeapMb = process.memoryUsage().heapUsed / MB;
  }
  return { rssPeakMb, rssNowMb: rss / MB, heapTotalMb: heapTotal / MB, liveHeapMb, window: sampled };
}

async function handle(command: HostCommand): Promise<unknown> {
  switch (command.cmd) {
    case 'prepare':
      return prepare(command.scenario, command.dir, command.gatewayUrl, command.pg);
    case 'finish':
      return finish();
    case 'sweep':
      return sweep(command.dir, command.count, command.gatewayUrl);
    case 'capture':
      return capture(command.dir, command.captureFile, command.gatewayUrl);
    case 'memory':
      return memory(command.collect === true);
    case 'exit':
      await finish();
      setImmediate(() => process.exit(0));
      return null;
  }
}

serveCommands(handle);
