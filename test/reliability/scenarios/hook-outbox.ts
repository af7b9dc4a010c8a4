/**
 * Hook outbox: a shop process is SIGKILLed inside its first `onPaid` call, after the transition
 * that owes it was committed and before the hook recorded anything (a test-only fault point in
 * the shop fixture). Restarted, the shop must deliver every hook every stored transition owes,
 * the interrupted one with the eventId it had before the kill, and none twice per eventId. Run
 * on a SQLite file (one process, restarted), then on PostgreSQL with two instances (the other
 * instance keeps running and the killed one comes back beside it). Every order must end as the
 * gateway's record says: paid, or expired by the sweeper when the kill cut its payment after the
 * submission and before the authorise left the process (the gateway never had it).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { OPEN_STATES } from '../../../server/orders/state-machine.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import { createSandbox, type SandboxLedger } from '../../../server/sandbox/index.js';
import { Browser } from '../../helpers/browser.js';
import { CARD } from '../../integration/checkout/journeys-harness.js';
import { journey } from '../support/journeys.js';
import { gatewayLedger, hookMismatches, ledgerMismatches } from '../support/ledger.js';
import { readOrders, type StoredOrder } from '../support/orders.js';
import { freePort, readJsonLines, startShopProcess, type ShopProcess } from '../support/process.js';
import { Report, type ScenarioResult } from '../support/result.js';
import { pool } from '../support/rng.js';
import { ACCOUNT_ID, MERCHANT_ID, type HookCall } from '../support/shop-app.js';
import { capturingLogger } from '../support/shop.js';
import type { Size } from '../support/sizes.js';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

/** What the fixture's fault point wrote just before the kill. */
interface Marker {
  orderNo: string;
  eventId: string;
  pid: number;
}

interface Shopper {
  orderNo: string;
  amount: number;
  done: boolean;
}

// A short sweeper lease: an order the killed instance's sweeper had claimed is settled inside the
// wait below. A short expiry: the kill may land between an order's submission and its authorise
// leaving the process, and the sweeper expires that order (the gateway never had it) in the wait too.
const OUTBOX_ENV = { OUTBOX_INTERVAL_MS: '100', OUTBOX_LEASE_MS: '500', SWEEPER_INTERVAL_MS: '300', STUCK_AFTER_MS: '500', EXPIRE_AFTER_MS: '3000', SWEEPER_LEASE_MS: '2000' };

function exitOf(proc: ShopProcess): Promise<NodeJS.Signals | null> {
  const { child } = proc;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.signalCode);
  return new Promise((resolve) => child.once('exit', (_code, signal) => {
    resolve(signal);
  }));
}

/** Creates the order on `shopUrl` (idempotent by order number) and pays it by card unless it was already sent. */
async function checkout(shopUrl: string, s: Shopper): Promise<void> {
  const res = await fetch(`${shopUrl}/shop/orders`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orderNo: s.orderNo, amount: s.amount }), signal: AbortSignal.timeout(10_000),
  });
  if (res.status !== 200) throw new Error(`order ${s.orderNo}: ${String(res.status)}`);
  const { payUrl } = (await res.json()) as { payUrl: string };
  const browser = new Browser({ timeoutMs: 10_000 });
  if ((await browser.get(payUrl)).url.includes('/checkout/result/')) {
    s.done = true;
    return;
  }
  await journey('direct', browser, payUrl, CARD.approve);
  s.done = true;
}

/** Waits until every order is settled and the outbox holds nothing pending. */
async function settle(open: () => Promise<{ store: OrderStore; close: () => Promise<void> }>, orderNos: string[]): Promise<{ found: StoredOrder[]; missing: string[]; outbox: { pending: number; dead: number } }> {
  let last = { found: [] as StoredOrder[], missing: [] as string[], outbox: { pending: -1, dead: -1 } };
  for (let i = 0; i < 60; i++) {
    const { store, close } = await open();
    try {
      const { found, missing } = await readOrders(store, orderNos);
      last = { found, missing, outbox: await store.countOutbox() };
    } finally {
      await close();
    }
    if (last.missing.length === 0 && last.outbox.pending === 0 && last.found.every((f) => !OPEN_STATES.includes(f.order.state))) break;
    await sleep(250);
  }
  return last;
}

function checkDeliveries(report: Report, label: string, settled: Awaited<ReturnType<typeof settle>>, calls: HookCall[], marker: Marker | null, killed: NodeJS.Signals | null, ledger: SandboxLedger): void {
  const { found, missing, outbox } = settled;
  report.check(`${label}: the fault point fired: the shop was SIGKILLed inside onPaid, after the commit`, 1, [
    ...(marker === null ? ['no onPaid call reached the fault point'] : []),
    ...(killed === 'SIGKILL' ? [] : [`the process ended with ${String(killed)}`]),
  ]);
  // Paid, unless the kill cut a payment between its submission and its authorise leaving the
  // process: the gateway never had that one, and the sweeper expires it (ledgerMismatches).
  report.figure(`${label}: orders the kill cut before their authorise left the process (expired by the sweeper)`, found.filter((f) => ledger.transaction(f.order.orderNo) === undefined).length);
  report.check(`${label}: no order lost, every order settled to the gateway's record (paid, or expired when the gateway never had it)`, found.length + missing.length, [
    ...missing.map((m) => `${m} missing`),
    ...ledgerMismatches(found.map((f) => f.order), ledger),
    ...found.filter((f) => ledger.transaction(f.order.orderNo) !== undefined && f.order.state !== 'paid').map((f) => `${f.order.orderNo} is ${f.order.state}`),
  ]);
  // Each eventId once here: a repeat across the kill is at-least-once delivery, judged by the next check.
  const seen = new Set<string>();
  const delivered = calls.filter((c) => {
    if (c.eventId === null) return true;
    if (seen.has(c.eventId)) return false;
    seen.add(c.eventId);
    return true;
  });
  report.check(`${label}: every hook a stored transition owes was delivered (onTransition each, one state hook each)`, found.length, hookMismatches(found, delivered));
  // At least once, as docs/orders.md promises: a call the killed process made and had not yet
  // removed from the outbox is made again after the restart with the same eventId. A second call
  // from one process life, or a repeat of a call no killed process made, is a real duplicate.
  const byEvent = new Map<string, HookCall[]>();
  for (const c of calls) if (c.eventId !== null) byEvent.set(c.eventId, [...(byEvent.get(c.eventId) ?? []), c]);
  const killedPid = marker?.pid ?? null;
  const duplicates: string[] = [];
  let repeatedAcrossKill = 0;
  for (const [id, delivered] of byEvent) {
    if (delivered.length < 2) continue;
    const pids = delivered.map((c) => c.pid);
    const fromKilled = pids.filter((p) => p === killedPid).length;
    const others = pids.length - fromKilled;
    if (fromKilled === 1 && others === 1) repeatedAcrossKill++;
    else duplicates.push(`${id} (${delivered[0]?.orderNo ?? ''} ${delivered[0]?.hook ?? ''}) delivered ${String(delivered.length)} times by pids ${pids.join(', ')}${killedPid === null ? '' : ` (killed: ${String(killedPid)})`}`);
  }
  report.figure(`${label}: calls repeated after the kill (made before it, not yet removed from the outbox)`, repeatedAcrossKill);
  report.check(`${label}: no eventId delivered twice, except once more after the kill for a call the killed process made`, calls.length, [
    ...calls.filter((c) => c.eventId === null).map((c) => `${c.orderNo} ${c.hook} without an eventId`),
    ...duplicates,
  ]);
  const redelivered = marker === null ? [] : calls.filter((c) => c.hook === 'onPaid' && c.eventId === marker.eventId && c.orderNo === marker.orderNo && c.pid !== marker.pid);
  report.check(`${label}: the interrupted onPaid was delivered after the kill, with the eventId it had before`, 1, redelivered.length === 1 ? [] : [`${String(redelivered.length)} deliveries of the interrupted onPaid`]);
  report.check(`${label}: the outbox is empty at the end: nothing pending, nothing given up`, 1, outbox.pending === 0 && outbox.dead === 0 ? [] : [`${String(outbox.pending)} pending, ${String(outbox.dead)} dead`]);
}

const readMarker = (path: string): Marker | null => (existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Marker) : null);

async function onSqlite(size: Size, report: Report, dir: string): Promise<void> {
  const files = { shop: join(dir, 'orders.sqlite'), sandbox: join(dir, 'sandbox.sqlite'), hooks: join(dir, 'hooks.jsonl'), logs: join(dir, 'log.jsonl'), marker: join(dir, 'crashed-sqlite.json') };
  const [shopPort, sandboxPort] = [await freePort(), await freePort()];
  const env = {
    ...OUTBOX_ENV, SHOP_PORT: String(shopPort), SANDBOX_PORT: String(sandboxPort), SHOP_SQLITE: files.shop, SANDBOX_SQLITE: files.sandbox,
    TOKEN_SECRET: `outbox-token-${randomUUID()}`, SIGN_KEY: `outbox-sign-${randomUUID()}`, HOOK_LOG: files.hooks, LOG_FILE: files.logs,
    HOOK_CRASH_MARKER: files.marker, HOOK_CRASH_HOOK: 'onPaid',
  };
  const shopUrl = `http://127.0.0.1:${String(shopPort)}`;
  const run = Date.now().toString(36);
  const shoppers: Shopper[] = Array.from({ length: size.outbox.orders }, (_, i) => ({ orderNo: `OUTBOX-S-${run}-${String(i)}`, amount: 1200 + i, done: false }));
  let proc: ShopProcess | null = await startShopProcess(env);
  try {
    const exited = exitOf(proc);
    await pool(shoppers, 3, (s) => checkout(shopUrl, s).catch(() => undefined));
    const killed = await Promise.race([exited, sleep(15_000).then(() => null)]);
    if (killed === null) await proc.kill();
    proc = await startShopProcess(env);
    const retried = await pool(shoppers.filter((s) => !s.done), 4, (s) => checkout(shopUrl, s).then(() => null, (e: unknown) => `${s.orderNo}: ${e instanceof Error ? e.message : String(e)}`));
    report.check('SQLite: every shopper can finish after the restart', shoppers.length, retried.filter((r): r is string => r !== null));
    const settled = await settle(() => {
      const store = createSqliteStore({ path: files.shop, busyTimeoutMs: 5000 });
      return Promise.resolve({ store, close: () => store.close() });
    }, shoppers.map((s) => s.orderNo));
    const ledger = await gatewayLedger(proc.gatewayUrl);
    await proc.stop();
    proc = null;
    const calls = readJsonLines<HookCall>(files.hooks);
    report.figure('SQLite: hook calls delivered', calls.length);
    checkDeliveries(report, 'SQLite', settled, calls, readMarker(files.marker), killed, ledger);
    report.runs += shoppers.length;
    report.ordersLost += settled.missing.length;
  } finally {
    await proc?.kill();
  }
}

async function onPostgres(size: Size, report: Report, dir: string): Promise<void> {
  if (!TEST_DATABASE_URL) {
    console.warn('\n*** reliability: hook outbox on two PostgreSQL instances SKIPPED: set TEST_DATABASE_URL ***\n');
    return;
  }
  const schema = `rel_outbox_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const db = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  const signKey = `outbox-pg-sign-${randomUUID()}`;
  const sandbox = createSandbox({ accounts: [{ merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey }], notifyTimeScale: 0.0001, logger: capturingLogger([]), env: {} });
  const gateway = await sandbox.listen(0);
  const marker = join(dir, 'crashed-pg.json');
  const procs: (ShopProcess | null)[] = [null, null];
  try {
    const ports = [await freePort(), await freePort()];
    const envOf = (i: number): Record<string, string> => ({
      ...OUTBOX_ENV, DATABASE_URL: TEST_DATABASE_URL, PG_SCHEMA: schema, GATEWAY_URL: gateway.baseUrl, SIGN_KEY: signKey, TOKEN_SECRET: `outbox-pg-token-${schema}`,
      SHOP_PORT: String(ports[i]), HOOK_LOG: join(dir, `pg-hooks-${String(i)}.jsonl`), LOG_FILE: join(dir, `pg-log-${String(i)}.jsonl`),
      // Only the first instance carries the fault point.
      ...(i === 0 ? { HOOK_CRASH_MARKER: marker, HOOK_CRASH_HOOK: 'onPaid' } : {}),
    });
    procs[0] = await startShopProcess(envOf(0));
    procs[1] = await startShopProcess(envOf(1));
    const exited = exitOf(procs[0]);
    const urls = ports.map((p) => `http://127.0.0.1:${String(p)}`);
    const run = Date.now().toString(36);
    const shoppers: Shopper[] = Array.from({ length: size.outbox.orders }, (_, i) => ({ orderNo: `OUTBOX-P-${run}-${String(i)}`, amount: 1200 + i, done: false }));
    await pool(shoppers, 3, (s, i) => checkout(urls[i % 2] ?? '', s).catch(() => undefined));
    const killed = await Promise.race([exited, sleep(15_000).then(() => null)]);
    if (killed === null) await procs[0].kill();
    // The survivor finishes the cut checkouts; the killed instance comes back beside it.
    const retried = await pool(shoppers.filter((s) => !s.done), 4, (s) => checkout(urls[1] ?? '', s).then(() => null, (e: unknown) => `${s.orderNo}: ${e instanceof Error ? e.message : String(e)}`));
    procs[0] = await startShopProcess(envOf(0));
    report.check('PostgreSQL: every shopper can finish on the surviving instance', shoppers.length, retried.filter((r): r is string => r !== null));
    const settled = await settle(async () => ({ store: await createPostgresStore({ pool: db, schema, migrate: false }), close: () => Promise.resolve() }), shoppers.map((s) => s.orderNo));
    await Promise.all(procs.map((p) => p?.stop() ?? Promise.resolve()));
    procs.fill(null);
    const calls = [0, 1].flatMap((i) => readJsonLines<HookCall>(join(dir, `pg-hooks-${String(i)}.jsonl`)));
    report.figure('PostgreSQL: hook calls delivered', calls.length);
    checkDeliveries(report, 'PostgreSQL, two instances', settled, calls, readMarker(marker), killed, sandbox.ledger);
    report.runs += shoppers.length;
    report.ordersLost += settled.missing.length;
  } finally {
    await Promise.all(procs.map((p) => p?.kill() ?? Promise.resolve()));
    await gateway.close();
    await sandbox.close();
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await db.end();
  }
}

export async function hookOutbox(size: Size): Promise<ScenarioResult> {
  const report = new Report('hook-outbox', 'Hooks survive a crash', size.name);
  report.tried =
    `${String(size.outbox.orders)} card checkouts against a shop process SIGKILLed inside its first onPaid (after the commit, before the hook ran), ` +
    `restarted on the same SQLite file; then ${String(size.outbox.orders)} more over two instances on one PostgreSQL schema, one of them killed the same way and restarted.`;
  const dir = mkdtempSync(join(tmpdir(), 'reliability-outbox-'));
  try {
    await onSqlite(size, report, dir);
    await onPostgres(size, report, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return report.finish();
}
