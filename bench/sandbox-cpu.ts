/**
 * CPU per call of the sandbox gateway in a process of its own, for before/after comparisons of a
 * change to the sandbox on a busy machine:
 *   npx tsx bench/sandbox-cpu.ts <authorise|query|both> [requests=3000] [rounds=3]
 * As in the bench: the gateway is bench/gateway.ts over a ledger seeded here, and the calls come
 * from the kit in this process over real HTTP, 32 connections. `authorise`: card pay-form posts
 * (approved, auto capture, the notification dropped), one /v1/authorise each, as pay_direct.
 * `query`: signed notifications of captured payments to a kit that confirms each with one
 * /v1/retrievalTrans, as notify_confirmed. The figure is the gateway process's CPU (every thread)
 * per request it received after the first tenth (warm-up); the median of the rounds is printed.
 * With SANDBOX_CPU_PROFILE=<dir>, the gateway process writes a V8 CPU profile there when it exits
 * (start-up included: use one round of many requests).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startChild } from './children.js';
import { keepAliveSender } from './keep-alive-sender.js';
import { SIGN_KEY, startFixture } from './fixture.js';
import type { GatewayCommand, GatewayCpu, LoadRequest, OpenedGateway } from './protocol.js';
import { notificationRequest, seededRequests, seedGatewayTransactions, seedPayRequests, seedPendingOrders } from './seed.js';

type Operation = 'authorise' | 'query';
const which = process.argv[2] ?? 'both';
const operations: Operation[] = which === 'authorise' || which === 'query' ? [which] : ['authorise', 'query'];
const count = Number(process.argv[3] ?? 3000);
const rounds = Number(process.argv[4] ?? 3);
const CONNECTIONS = 32;
const profileDir = process.env.SANDBOX_CPU_PROFILE;

/** Seeds `dir` (the kit's orders, the sandbox's ledger) and returns the requests to send. */
function seeded(dir: string, operation: Operation): Promise<LoadRequest[]> {
  return seededRequests(dir, async (target, out) => {
    if (operation === 'authorise') {
      await seedPayRequests(target, 'P', count, 'card', out);
      return;
    }
    await seedPendingOrders(target, 'N', count);
    seedGatewayTransactions(target, 'N', count, 'captured', (tx) => {
      out.add(notificationRequest(tx));
    });
  });
}

// The gateway process must sign with this process's key: it reads the run's secret from the
// environment it inherits, as the bench's children do.
process.env.CHECKOUT_BENCH_SECRET = SIGN_KEY.slice('bench-sign-key-'.length);
const gateway = await startChild<GatewayCommand>('./gateway.ts', [], profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', resolve(profileDir)]);

async function round(operation: Operation): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-cpu-'));
  const requests = await seeded(dir, operation);
  const { url } = await gateway.send<OpenedGateway>({ cmd: 'open', dir, captureMode: 'auto', dropNotifications: operation === 'authorise' });
  const fixture = await startFixture({ dir, gatewayUrl: url, confirmNotifications: operation === 'query' });
  const expected = operation === 'authorise' ? 303 : 200;
  const sender = keepAliveSender(fixture.shopUrl, CONNECTIONS, expected);
  // The first tenth warms the code up; the rest is measured.
  const warm = Math.floor(requests.length / 10);
  await sender.run(requests.slice(0, warm));
  await gateway.send({ cmd: 'cpu' });
  await sender.run(requests.slice(warm));
  // Every answer is in, so every gateway call the kit made has been answered.
  const { cpuUsPerRequest, requests: received } = await gateway.send<GatewayCpu>({ cmd: 'cpu' });
  sender.close();
  await fixture.close();
  await gateway.send({ cmd: 'close' });
  rmSync(dir, { recursive: true, force: true });
  if (sender.wrong() > 0) throw new Error(`${String(sender.wrong())} answers were not ${String(expected)}`);
  if (received !== requests.length - warm) throw new Error(`the gateway received ${String(received)} requests for ${String(requests.length - warm)} calls`);
  return cpuUsPerRequest;
}

const figures = new Map<Operation, number[]>(operations.map((op) => [op, []]));
try {
  for (let i = 0; i < rounds; i++) {
    for (const operation of operations) {
      const figure = await round(operation);
      figures.get(operation)?.push(figure);
      console.log(`${operation} round ${String(i + 1)}: ${figure.toFixed(0)} µs of gateway CPU per call`);
    }
  }
} finally {
  await gateway.stop();
}
for (const [operation, values] of figures) {
  const sorted = [...values].sort((a, b) => a - b);
  console.log(`${operation}: median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(0) ?? ''} µs of gateway CPU per call (${String(rounds)} rounds of ${String(count)}; ${values.map((v) => v.toFixed(0)).join(', ')})`);
}
