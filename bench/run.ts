/**
 * `npm run bench`: every figure in one run on one machine, so the ratios hold however busy the
 * machine is. The servers under test, the gateway (the sandbox, bench/gateway.ts) and the load
 * generator are separate processes; every scenario run follows a baseline run of its own; each
 * figure is the median of its rounds and each ratio the median of the rounds' ratios (a scenario
 * over the baseline measured just before it).
 *
 *   npm run bench                     full run, writes bench/results.json
 *   npm run bench -- --quick          a few seconds of smoke test, writes to a temp file
 * The full run builds first (`npm run build`, then the bench modules into dist/bench) and runs
 * every child from the compiled JavaScript with plain node, as a shop runs the kit; the quick run
 * runs the TypeScript sources under tsx to stay fast. --source / --compiled override that.
 *   options: --out <file> --rounds <n> --duration <s> --connections <n>
 *            --only <name,…> (measure only these scenarios, baselines, sweep, capture; other figures are NaN)
 *            --profile <dir> (V8 CPU profile of the server under test per measured window)
 *            --profile-promoted (with --profile: a sampling heap profile of what was promoted instead)
 *            --pg <url> (PostgreSQL figures; default $BENCH_DATABASE_URL; without one they are NaN)
 *            --sqlite-simple, --transport undici|fetch (the simple alternative to a layer, for docs' "Machinery")
 *            --server-flags='<node flags>' (every server; the default is none, to measure advice such as V8 heap flags)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { benchFile, runJob, runLoad, startChild, useCompiled, type Child } from './children.js';
import { measureFsync } from './disk.js';
import { ACCOUNT_ID, MERCHANT_ID } from './fixture.js';
import type { BaselineConfig, BaselineName, CaptureResult, Finished, GatewayCommand, GatewayCpu, HostCommand, HostVariant, LoadJob, MemoryResult, OpenedGateway, PgTarget, Prepared, Scenario, SeedJob, SeedOutput, SweepResult } from './protocol.js';
import { SCENARIOS } from './protocol.js';
import { dropSchema } from './pg-schema.js';
import { notificationRequest } from './seed.js';
import { figures, type Run } from './results.js';
import { rows, textTable } from './targets.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    out: { type: 'string' },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'string' },
    'profile-promoted': { type: 'boolean', default: false },
    source: { type: 'boolean', default: false },
    compiled: { type: 'boolean', default: false },
    pg: { type: 'string' },
    'sqlite-simple': { type: 'boolean', default: false },
    transport: { type: 'string' },
    'server-flags': { type: 'string' },
  },
});
const pgUrl = args.pg ?? process.env.BENCH_DATABASE_URL ?? null;
const variant: HostVariant = {
  ...(args['sqlite-simple'] ? { sqliteSimple: true } : {}),
  ...(args.transport === 'undici' || args.transport === 'fetch' ? { transport: args.transport } : {}),
};
const quick = args.quick;
const compiled = args.compiled || (!quick && !args.source);
const config = {
  rounds: Number(args.rounds ?? (quick ? 1 : 5)),
  duration: Number(args.duration ?? (quick ? 1 : 5)),
  warmup: quick ? 0.25 : 1,
  /**
   * Enough requests in flight to keep a route that waits for the disk busy: its group commit then
   * serves more of them per fsync, as under real load (see docs/performance.md, "Load").
   */
  connections: Number(args.connections ?? 32),
  sweeps: quick ? [500, 1000] : [10_000, 100_000],
  smallSweepRepeats: quick ? 1 : 3,
  capture: 1000,
  /** Cap on the orders seeded for one measured run. */
  maxOrders: quick ? 3000 : 120_000,
};
const only = args.only === undefined ? null : new Set(args.only.split(','));
const wanted = (name: string): boolean => only === null || only.has(name);
const workDir = mkdtempSync(join(tmpdir(), 'checkout-bench-'));
let dirs = 0;
const scenarioDir = (name: string): string => mkdtempSync(join(workDir, `${name}-${String(++dirs)}-`));
// The children share this run's secrets through their inherited environment.
process.env.CHECKOUT_BENCH_SECRET = randomUUID();
const out = args.out ?? (quick ? join(workDir, 'results.json') : benchFile('./results.json'));
/**
 * The servers run with Node's default flags: the kit does not choose a shop's V8 settings (the
 * docs give the measured effect of some as advice). --expose-gc only lets the servers collect the
 * seeding's garbage before a window and measure the live heap between windows.
 */
const SERVER_NODE_FLAGS: string[] = args['server-flags']?.split(' ').filter((f) => f !== '') ?? [];
/** Sizes the first round's order lists before any baseline was measured (req/s). */
const FIRST_BASELINE_GUESS = 10_000;
/** First guess of each scenario's share of the bare baseline, to size its order list. */
const GUESS: Record<Scenario, number> = { notify: 0.6, notify_store: 0.8, notify_confirmed: 0.3, pay_direct: 0.15, pay_direct_store: 0.4, render: 0.35, render_store: 0.8, notify_pg: 0.3, pay_direct_pg: 0.1 };
/** The baseline each route is paired with: the same bare route doing the durable writes and gateway calls the route must. */
const PAIRED: Record<Scenario, BaselineName> = {
  notify: 'durable_baseline', notify_store: 'durable_baseline', render: 'durable_baseline', render_store: 'durable_baseline', pay_direct: 'gateway_baseline', pay_direct_store: 'gateway_baseline', notify_confirmed: 'gateway_baseline',
  notify_pg: 'pg_durable_baseline', pay_direct_pg: 'pg_gateway_baseline',
};
/** Each baseline is paired with the one it adds a step to. */
const CHAIN: Record<Exclude<BaselineName, 'baseline'>, BaselineName> = {
  durable_baseline: 'baseline', gateway_baseline: 'durable_baseline', pg_durable_baseline: 'baseline', pg_gateway_baseline: 'pg_durable_baseline',
};
/** Durable rows each request of a baseline stores. */
const ROWS_PER_REQUEST: Record<BaselineName, number> = { baseline: 0, durable_baseline: 1, gateway_baseline: 2, pg_durable_baseline: 1, pg_gateway_baseline: 2 };
const PG_SCENARIOS: readonly Scenario[] = ['notify_pg', 'pay_direct_pg'];
/** The requests each scenario is sent: its route's own. */
const SEED_KIND: Record<Scenario, SeedJob['kind']> = {
  notify: 'notify', notify_store: 'notify', notify_confirmed: 'notify', notify_pg: 'notify', render: 'render', render_store: 'render',
  pay_direct: 'pay_direct', pay_direct_store: 'pay_direct', pay_direct_pg: 'pay_direct',
};

const log = (text: string): void => {
  process.stderr.write(`${text}\n`);
};

function baselineRequests(count: number): string {
  const file = join(workDir, 'baseline-requests.json');
  const list = Array.from({ length: count }, (_v, i) =>
    notificationRequest({
      merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, orderNo: `B-${String(i).padStart(7, '0')}`, transactionId: `SBX20260101000000B${String(i).padStart(7, '0')}`,
      amount: 2500, currency: 'USD', orderStatus: '1', resultInfo: '0000:Success', paymentStatus: '3000', card: '424242******4242',
    }),
  );
  writeFileSync(file, JSON.stringify(list));
  return file;
}

function check(run: Run, expectStatus: number): void {
  const { load } = run;
  const good = load.statusCounts[String(expectStatus)] ?? 0;
  const line = `${run.name.padEnd(16)} round ${String(run.round)}: ${load.rps.toFixed(0)} req/s, p99 ${load.p99Ms.toFixed(1)} ms, ${String(load.requests)} requests in ${load.seconds.toFixed(1)} s, statuses ${JSON.stringify(load.statusCounts)}`;
  const cpu = run.finished ? `, server CPU ${run.finished.cpuUsPerRequest.toFixed(0)} µs/request` : '';
  const gatewayCpu = run.gatewayCpuUsPerRequest === undefined ? '' : `, gateway CPU ${run.gatewayCpuUsPerRequest.toFixed(0)} µs/request`;
  const orders = run.finished && Object.keys(run.finished.states).length > 0 ? `, orders ${JSON.stringify(run.finished.states)}` : '';
  log(`${line}${cpu}${gatewayCpu}${orders}`);
  if (load.overrun > 0) log(`  (${run.name} used up its ${String(load.requests - load.overrun)} orders and stopped early)`);
  if (load.errors > 0 || good < load.requests - load.overrun) {
    throw new Error(`${run.name}: ${String(load.requests - good)} of ${String(load.requests)} requests did not answer ${String(expectStatus)} (errors ${String(load.errors)})`);
  }
}

const ROOT = benchFile('..');
const COMPILED_DIR = join(ROOT, 'dist', 'bench');

function sh(command: string, argv: string[]): void {
  const done = spawnSync(command, argv, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (done.status !== 0) throw new Error(`${command} ${argv.join(' ')} failed (exit ${String(done.status)})`);
}

/** `npm run build` (dist/server), then the bench modules next to it (dist/bench). */
function build(): void {
  log('building: npm run build, then bench/ into dist/bench');
  sh('npm', ['run', 'build', '--silent']);
  sh(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'bench', 'tsconfig.json')]);
  useCompiled(COMPILED_DIR);
}

async function main(): Promise<void> {
  if (compiled) build();
  log(`checkout bench (${quick ? 'quick' : 'full'}, ${compiled ? 'compiled JavaScript' : 'TypeScript under tsx'}): ${String(config.rounds)} round(s) of ${String(config.duration)} s at ${String(config.connections)} connections; ${String(cpus().length)} CPUs`);
  if (args.profile !== undefined) mkdirSync(args.profile, { recursive: true });
  // Before any server starts, so the disk is measured idle.
  const fsync = measureFsync(workDir, quick ? 20 : 500);
  log(`fdatasync of a 4 KiB append: p50 ${fsync.p50_us.toFixed(0)} µs, p99 ${fsync.p99_us.toFixed(0)} µs`);
  const host = await startChild<HostCommand>('./host.ts', [args.profile === undefined ? '' : resolve(args.profile), JSON.stringify(variant), args['profile-promoted'] ? 'promoted' : 'cpu'], SERVER_NODE_FLAGS);
  const upstream = await startChild<{ cmd: 'exit' }>('./upstream.ts', []);
  const upstreamUrl = (upstream.ready as { url: string }).url;
  const simple = variant.sqliteSimple === true;
  const pgSchema = (name: string): PgTarget | null => (pgUrl === null ? null : { url: pgUrl, schema: `bench_${name}_${randomUUID().slice(0, 8)}` });
  const baselineConfigs: Partial<Record<BaselineName, BaselineConfig>> = {
    baseline: { kind: 'bare' },
    durable_baseline: { kind: 'durable', store: { sqlite: join(workDir, 'durable-baseline.sqlite'), simple } },
    gateway_baseline: { kind: 'gateway', store: { sqlite: join(workDir, 'gateway-baseline.sqlite'), simple }, upstream: upstreamUrl },
  };
  const pgDurable = pgSchema('durable');
  const pgGateway = pgSchema('gateway');
  if (pgDurable !== null && pgGateway !== null) {
    baselineConfigs.pg_durable_baseline = { kind: 'durable', store: { pg: pgDurable.url, schema: pgDurable.schema } };
    baselineConfigs.pg_gateway_baseline = { kind: 'gateway', store: { pg: pgGateway.url, schema: pgGateway.schema }, upstream: upstreamUrl };
  }
  const baselines = new Map<BaselineName, Child<HostCommand>>();
  for (const [name, cfg] of Object.entries(baselineConfigs) as [BaselineName, BaselineConfig][]) {
    baselines.set(name, await startChild<HostCommand>('./baseline.ts', [JSON.stringify(cfg)], SERVER_NODE_FLAGS));
  }
  const baseline = baselines.get('baseline')!;
  const gateway = await startChild<GatewayCommand>('./gateway.ts', []);
  /**
   * The gateway process's sandbox over `dir`'s ledger, or null for notify_confirmed, which the
   * benchmark defines against the sandbox inside the server.
   */
  const openGateway = async (dir: string, scenario: Scenario | 'sweep' | 'capture'): Promise<string | null> => {
    if (scenario === 'notify_confirmed') return null;
    // pay_direct's store part calls the gateway baseline's upstream, as that baseline does.
    if (scenario === 'pay_direct_store') return upstreamUrl;
    const command: GatewayCommand = { cmd: 'open', dir, captureMode: scenario === 'capture' ? 'manual' : 'auto', dropNotifications: scenario.startsWith('pay_direct') };
    return (await gateway.send<OpenedGateway>(command)).url;
  };
  const idle = await host.send<MemoryResult>({ cmd: 'memory' });
  const runs: Run[] = [];
  let liveHeap = 0;
  /** Each part's sampled RSS peak and the heap spaces then, in run order (results' memory_parts). */
  const memoryParts: { part: string; rss_peak_mb: number; heap_mb: Record<string, number>; resident_mb: Record<string, number> }[] = [];
  try {
    const baselineFile = baselineRequests(quick ? 20_000 : 200_000);
    const memoryLine = async (part: string): Promise<string> => {
      const m = await host.send<MemoryResult>({ cmd: 'memory', collect: true });
      liveHeap = Math.max(liveHeap, m.liveHeapMb ?? 0);
      const w = m.window;
      if (w !== undefined) memoryParts.push({ part, rss_peak_mb: w.rssPeakMb, heap_mb: w.heapMb, resident_mb: w.partsMb });
      const here = w === undefined ? '' : `; this part's peak ${w.rssPeakMb.toFixed(0)} MB, V8 spaces then (MB) ${Object.entries(w.heapMb).map(([k, v]) => `${k} ${String(v)}`).join(', ')}; resident (MB) ${Object.entries(w.partsMb).map(([k, v]) => `${k} ${String(v)}`).join(', ')}`;
      return `server RSS ${m.rssNowMb.toFixed(0)} MB (peak ${m.rssPeakMb.toFixed(0)} MB), V8 heap ${m.heapTotalMb.toFixed(0)} MB, live after GC ${(m.liveHeapMb ?? NaN).toFixed(0)} MB${here}`;
    };
    const job = (url: string, requestsFile: string): LoadJob => ({ url, requestsFile, connections: config.connections, duration: config.duration, warmup: config.warmup });

    const scenarios = SCENARIOS.filter((name) => wanted(name) && (pgUrl !== null || !PG_SCENARIOS.includes(name)));
    /** One run of a baseline server, paired with the run before it (`pairedWith`), if any. */
    const measureBaseline = async (name: BaselineName, round: number, pairedWith?: Run): Promise<Run> => {
      const server = baselines.get(name);
      if (server === undefined) throw new Error(`no ${name} server (PostgreSQL figures need --pg)`);
      await server.send({ cmd: 'cpu' });
      const load = await runLoad(job(((server.ready as { url: string }).url), baselineFile));
      const { cpuUsPerRequest, stored } = await server.send<{ cpuUsPerRequest: number; stored: number | null }>({ cmd: 'cpu' });
      // A durable baseline reports its rows (all rounds so far): every answered request stored its rows.
      const states: Record<string, number> = stored === null ? {} : { rows: stored };
      const finished = { completed: load.requests, states, cpuUsPerRequest };
      const run: Run = { name, round, load, finished, ...(pairedWith === undefined ? {} : { baseline: pairedWith }) };
      check(run, name.endsWith('gateway_baseline') ? 303 : 200);
      const rowsBefore = runs.filter((r) => r.name === name).reduce((n, r) => n + r.load.requests, 0);
      const rowsNeeded = ROWS_PER_REQUEST[name] * (rowsBefore + load.requests);
      if (stored !== null && stored < rowsNeeded) throw new Error(`${name}: ${String(stored)} rows stored for ${String(rowsNeeded)} owed to answered requests`);
      runs.push(run);
      return run;
    };
    const chainNames = (['durable_baseline', 'gateway_baseline', 'pg_durable_baseline', 'pg_gateway_baseline'] as const).filter((name) => wanted(name) && baselines.has(name));
    for (let round = 1; round <= config.rounds; round++) {
      // The floors, each paired with a run of the one it adds a step to.
      // bare → durable → gateway (and bare → PostgreSQL durable → PostgreSQL gateway), back to back.
      let last: Run | undefined;
      for (const name of chainNames) {
        const below = CHAIN[name];
        last = await measureBaseline(name, round, last?.name === below ? last : await measureBaseline(below, round));
      }
      for (const scenario of scenarios) {
        // Enough orders for the run at the best rate seen so far or the first guess, whichever is
        // higher, plus headroom: a round slowed down by the machine must not size the next one short
        // (a run that uses up its orders stops early, repeating its last request).
        const previous = runs.filter((r) => r.name === scenario).map((r) => r.load.rps);
        const lastBaseline = runs.findLast((r) => r.name === 'baseline')?.load.rps ?? FIRST_BASELINE_GUESS;
        const rps = Math.max(...previous, lastBaseline * GUESS[scenario]);
        const count = Math.min(config.maxOrders, Math.ceil(rps * 1.5 * (config.duration + config.warmup)) + 4 * config.connections);
        const kind = SEED_KIND[scenario];
        const pg = PG_SCENARIOS.includes(scenario) ? pgSchema(scenario) ?? undefined : undefined;
        const seedJob: SeedJob = { dir: scenarioDir(scenario), kind, count, ...(pg === undefined ? {} : { pg }) };
        log(`${scenario.padEnd(16)} round ${String(round)}: seeding ${String(count)} orders${pg === undefined ? '' : ` in PostgreSQL schema ${pg.schema}`}`);
        const [seeded] = await runJob<SeedOutput[]>('./seeder.ts', [seedJob]);
        // Each route is paired with its own baseline measured just before it, so the pair shares
        // whatever the machine was doing in that minute.
        const paired = await measureBaseline(PAIRED[scenario], round);
        const { dir } = seedJob;
        const gatewayUrl = await openGateway(dir, scenario);
        // The gateway process's CPU counts from here (warm-up included, as the server's).
        const sandboxUsed = gatewayUrl !== null && gatewayUrl !== upstreamUrl;
        if (sandboxUsed) await gateway.send({ cmd: 'cpu' });
        const prepared = await host.send<Prepared>({ cmd: 'prepare', scenario, dir, gatewayUrl, ...(pg === undefined ? {} : { pg }) });
        const load = await runLoad(job(prepared.url, seeded?.requestsFile ?? ''));
        const run: Run = { name: scenario, round, load, finished: await host.send<Finished>({ cmd: 'finish' }), baseline: paired };
        // Asked once the server has had every answer: no gateway request is left in flight.
        const gatewayCpu = sandboxUsed ? await gateway.send<GatewayCpu>({ cmd: 'cpu' }) : null;
        if (gatewayCpu !== null && gatewayCpu.requests > 0) run.gatewayCpuUsPerRequest = gatewayCpu.cpuUsPerRequest;
        if (sandboxUsed) await gateway.send({ cmd: 'close' });
        if (pg !== undefined) await dropSchema(pg);
        check(run, prepared.expectStatus);
        log(`  ${await memoryLine(`${scenario} ${String(round)}`)}`);
        rmSync(dir, { recursive: true, force: true });
        runs.push(run);
      }
    }

    // The smaller sweep is short enough to repeat: its median resists a burst of load elsewhere.
    const sweepCounts = wanted('sweep') ? [...Array<number>(config.smallSweepRepeats).fill(config.sweeps[0]!), ...config.sweeps.slice(1)] : [];
    const sweepJobs: SeedJob[] = sweepCounts.map((count) => ({ dir: scenarioDir('sweep'), kind: 'sweep', count }));
    const captureJob: SeedJob[] = wanted('capture') ? [{ dir: scenarioDir('capture'), kind: 'capture', count: config.capture }] : [];
    const seeded = await runJob<SeedOutput[]>('./seeder.ts', [...sweepJobs, ...captureJob]);
    const sweeps: SweepResult[] = [];
    for (const { dir, count } of sweepJobs) {
      const sweep = await host.send<SweepResult>({ cmd: 'sweep', dir, count, gatewayUrl: await openGateway(dir, 'sweep') });
      await gateway.send({ cmd: 'close' });
      rmSync(dir, { recursive: true, force: true });
      log(`sweep ${String(count)}: ${sweep.seconds.toFixed(2)} s, ${String(sweep.queries)} queries, ${String(sweep.runs)} run(s); ${await memoryLine(`sweep ${String(count)}`)}`);
      sweeps.push(sweep);
    }
    let capture: CaptureResult = { seconds: NaN, orders: 0, captured: 0, requests: 0 };
    for (const { dir } of captureJob) {
      capture = await host.send<CaptureResult>({ cmd: 'capture', dir, captureFile: seeded[sweepJobs.length]?.captureFile ?? '', gatewayUrl: await openGateway(dir, 'capture') });
      await gateway.send({ cmd: 'close' });
      rmSync(dir, { recursive: true, force: true });
      log(`batch capture ${String(capture.orders)}: ${capture.seconds.toFixed(2)} s in ${String(capture.requests)} requests; ${await memoryLine('batch capture')}`);
    }
    const memory = await host.send<MemoryResult>({ cmd: 'memory' });
    const baselineMemory = await baseline.send<MemoryResult>({ cmd: 'memory' });

    const results = await figures({ runs, sweeps, capture, sweepOrders: config.sweeps, rssPeakMb: memory.rssPeakMb, rssIdleMb: idle.rssNowMb, liveHeapMb: liveHeap });
    const document = {
      ...results,
      mode: quick ? 'quick' : 'full',
      runtime: compiled ? 'node (compiled JavaScript)' : 'node --import tsx (TypeScript sources)',
      generated_at: new Date().toISOString(),
      machine: { node: process.version, platform: `${process.platform} ${process.arch}`, cpus: cpus().length, cpu_model: cpus()[0]?.model ?? 'unknown', fsync },
      settings: { ...config, sweep_orders: config.sweeps, server_node_flags: SERVER_NODE_FLAGS, variant, postgres: pgUrl !== null },
      targets_met: rows(results).filter((r) => r.meets !== null).every((r) => r.meets === true),
      baseline_rss_mb_peak: baselineMemory.rssPeakMb,
      memory_parts: memoryParts,
      sweeps,
      batch_capture: capture,
      runs: runs.map((r) => ({
        name: r.name, round: r.round, ...r.load, server_cpu_us_per_request: r.finished?.cpuUsPerRequest,
        ...(r.baseline === undefined ? {} : { paired_with: r.baseline.name, ratio: r.load.rps / r.baseline.load.rps, cpu_ratio: (r.finished?.cpuUsPerRequest ?? NaN) / (r.baseline.finished?.cpuUsPerRequest ?? NaN) }),
        ...(r.name === 'baseline' ? {} : { orders: r.finished?.states }),
        ...(r.gatewayCpuUsPerRequest === undefined ? {} : { gateway_cpu_us_per_request: r.gatewayCpuUsPerRequest }),
      })),
    };
    writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
    process.stdout.write(`${textTable(results)}\n\nwritten to ${out}\n`);
  } finally {
    await Promise.all([host.stop(), ...[...baselines.values()].map((b) => b.stop()), upstream.stop(), gateway.stop()]);
    if (!quick || args.out !== undefined) rmSync(workDir, { recursive: true, force: true });
    // The package ships dist/: the bench's own modules do not belong there.
    if (compiled) rmSync(COMPILED_DIR, { recursive: true, force: true });
  }
}

await main();
