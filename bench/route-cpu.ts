/**
 * CPU per request of the pay route in one process, for before/after comparisons of a change on a
 * busy machine: `npx tsx bench/route-cpu.ts <render|pay_direct> [requests=3000] [rounds=3]`.
 * Seeds the bench's own orders and pay-form posts (bench/seed.ts) into a fresh SQLite file, then
 * sends them with 32 keep-alive connections to the kit mounted as bench/fixture.ts mounts it,
 * the sandbox in the same process (its notifications dropped, as in the bench). The figure is
 * this process's CPU (every thread: client, kit, sandbox) over the requests answered, so it is
 * only comparable with itself; the median of the rounds is printed. With ROUTE_CPU_PROFILE=<file>,
 * the measured window of the last round is written there as a V8 CPU profile; with
 * ROUTE_HEAP_PROFILE=<file>, as a sampling heap profile of what it allocated (collected or not).
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createCheckoutKit } from '../server/kit.js';
import { createSqliteStore } from '../server/orders/stores/sqlite.js';
import { kitOptions, openSandbox, ordersFile, startFixture } from './fixture.js';
import type { LoadRequest } from './protocol.js';
import { RequestFile, seedPayRequests } from './seed.js';

const scenario = process.argv[2] === 'pay_direct' ? 'pay_direct' : 'render';
const count = Number(process.argv[3] ?? 3000);
const rounds = Number(process.argv[4] ?? 3);
const CONNECTIONS = 32;

async function seeded(dir: string): Promise<LoadRequest[]> {
  const { sandbox, ledger } = openSandbox(dir);
  const db = new Database(ordersFile(dir));
  const store = createSqliteStore({ database: db });
  const kit = createCheckoutKit({ ...kitOptions('http://127.0.0.1/checkout', 'http://127.0.0.1:9'), store });
  const out = new RequestFile(join(dir, 'requests.json'));
  await seedPayRequests({ kit, ledger, db }, 'P', count, scenario === 'pay_direct' ? 'card' : 'hosted', out);
  out.close();
  await kit.close();
  await store.close();
  await sandbox.close();
  db.close();
  return JSON.parse(readFileSync(join(dir, 'requests.json'), 'utf8')) as LoadRequest[];
}

async function round(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'route-cpu-'));
  const requests = await seeded(dir);
  const fixture = await startFixture({ dir, gatewayUrl: null, confirmNotifications: false });
  fixture.inProcess?.sandbox.faults.add({ kind: 'dropNotification' });
  const { hostname, port } = new URL(fixture.shopUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const expected = scenario === 'pay_direct' ? 303 : 200;
  let next = 0;
  let wrong = 0;
  const send = (r: LoadRequest): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = request({ agent, hostname, port, method: r.method, path: r.path, headers: r.headers }, (res) => {
        if (res.statusCode !== expected) wrong++;
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(r.body);
    });
  // The first tenth warms the code up; the rest is measured.
  const warm = Math.floor(requests.length / 10);
  const measured = requests.slice(warm);
  let list = requests.slice(0, warm);
  const run = async (): Promise<void> => {
    next = 0;
    const jobs = Array.from({ length: CONNECTIONS }, async () => {
      while (next < list.length) {
        const r = list[next++];
        if (r !== undefined) await send(r);
      }
    });
    await Promise.all(jobs);
  };
  await run();
  list = measured;
  const profile = process.env.ROUTE_CPU_PROFILE;
  const heapProfile = process.env.ROUTE_HEAP_PROFILE;
  const inspector = profile === undefined && heapProfile === undefined ? null : new Session();
  inspector?.connect();
  if (profile !== undefined) {
    await inspector?.post('Profiler.enable');
    await inspector?.post('Profiler.start');
  }
  if (heapProfile !== undefined) {
    await inspector?.post('HeapProfiler.enable');
    await inspector?.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  }
  const start = process.cpuUsage();
  await run();
  const used = process.cpuUsage(start);
  if (inspector !== null) {
    if (profile !== undefined) writeFileSync(profile, JSON.stringify((await inspector.post('Profiler.stop')).profile));
    if (heapProfile !== undefined) writeFileSync(heapProfile, JSON.stringify((await inspector.post('HeapProfiler.stopSampling')).profile));
    inspector.disconnect();
  }
  agent.destroy();
  await fixture.close();
  rmSync(dir, { recursive: true, force: true });
  if (wrong > 0) throw new Error(`${String(wrong)} answers were not ${String(expected)}`);
  return (used.user + used.system) / measured.length;
}

const figures: number[] = [];
for (let i = 0; i < rounds; i++) {
  figures.push(await round());
  console.log(`${scenario} round ${String(i + 1)}: ${figures.at(-1)?.toFixed(0) ?? ''} µs of CPU per request`);
}
const sorted = [...figures].sort((a, b) => a - b);
console.log(`${scenario}: median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(0) ?? ''} µs of CPU per request (${String(rounds)} rounds of ${String(count)})`);
