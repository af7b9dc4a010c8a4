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
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixture } from './fixture.js';
import { keepAliveSender } from './keep-alive-sender.js';
import { seededRequests, seedPayRequests } from './seed.js';

const scenario = process.argv[2] === 'pay_direct' ? 'pay_direct' : 'render';
const count = Number(process.argv[3] ?? 3000);
const rounds = Number(process.argv[4] ?? 3);
const CONNECTIONS = 32;

async function round(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'route-cpu-'));
  const requests = await seededRequests(dir, (target, out) => seedPayRequests(target, 'P', count, scenario === 'pay_direct' ? 'card' : 'hosted', out));
  const fixture = await startFixture({ dir, gatewayUrl: null, confirmNotifications: false });
  fixture.inProcess?.sandbox.faults.add({ kind: 'dropNotification' });
  const expected = scenario === 'pay_direct' ? 303 : 200;
  const sender = keepAliveSender(fixture.shopUrl, CONNECTIONS, expected);
  // The first tenth warms the code up; the rest is measured.
  const warm = Math.floor(requests.length / 10);
  const measured = requests.slice(warm);
  await sender.run(requests.slice(0, warm));
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
  await sender.run(measured);
  const used = process.cpuUsage(start);
  if (inspector !== null) {
    if (profile !== undefined) writeFileSync(profile, JSON.stringify((await inspector.post('Profiler.stop')).profile));
    if (heapProfile !== undefined) writeFileSync(heapProfile, JSON.stringify((await inspector.post('HeapProfiler.stopSampling')).profile));
    inspector.disconnect();
  }
  sender.close();
  await fixture.close();
  rmSync(dir, { recursive: true, force: true });
  if (sender.wrong() > 0) throw new Error(`${String(sender.wrong())} answers were not ${String(expected)}`);
  return (used.user + used.system) / measured.length;
}

const figures: number[] = [];
for (let i = 0; i < rounds; i++) {
  figures.push(await round());
  console.log(`${scenario} round ${String(i + 1)}: ${figures.at(-1)?.toFixed(0) ?? ''} µs of CPU per request`);
}
const sorted = [...figures].sort((a, b) => a - b);
console.log(`${scenario}: median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(0) ?? ''} µs of CPU per request (${String(rounds)} rounds of ${String(count)})`);
