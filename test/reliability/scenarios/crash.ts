/**
 * Crash: concurrent checkouts against a shop process (kit + sandbox + SQLite files), killed with
 * SIGKILL midway and restarted on the same files and ports. No order the shop acknowledged may
 * be lost, both databases must pass `PRAGMA integrity_check`, and the sweeper must settle every
 * order to the ledger's state without charging anything twice.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { OPEN_STATES } from '../../../server/orders/state-machine.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import { Browser } from '../../helpers/browser.js';
import { CardScanner } from '../support/card-scan.js';
import { CARD } from '../../integration/checkout/journeys-harness.js';
import { journey, type Journey } from '../support/journeys.js';
import { gatewayLedger, ledgerDoubleCharges, ledgerMismatches } from '../support/ledger.js';
import { readOrders } from '../support/orders.js';
import { PageChecker } from '../support/pages.js';
import { freePort, readJsonLines, startShopProcess, type ShopProcess } from '../support/process.js';
import { Report, type ScenarioResult } from '../support/result.js';
import { pool } from '../support/rng.js';
import type { HookCall } from '../support/shop-app.js';
import type { Size } from '../support/sizes.js';

interface Shopper {
  orderNo: string;
  journey: Journey;
  orderId: string | null;
  done: boolean;
}

function integrity(path: string): string {
  const db = new Database(path);
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

export async function crash(size: Size): Promise<ScenarioResult> {
  const report = new Report('crash', 'Crash and restart', size.name);
  const scanner = new CardScanner();
  const pages = new PageChecker(scanner);
  const dir = mkdtempSync(join(tmpdir(), 'reliability-crash-'));
  const files = { shop: join(dir, 'orders.sqlite'), sandbox: join(dir, 'sandbox.sqlite'), hooks: join(dir, 'hooks.jsonl'), logs: join(dir, 'log.jsonl') };
  const [shopPort, sandboxPort] = [await freePort(), await freePort()];
  const env = {
    SHOP_PORT: String(shopPort), SANDBOX_PORT: String(sandboxPort), SHOP_SQLITE: files.shop, SANDBOX_SQLITE: files.sandbox,
    TOKEN_SECRET: `crash-token-secret-${randomUUID()}`, SIGN_KEY: `crash-sign-key-${randomUUID()}`, HOOK_LOG: files.hooks, LOG_FILE: files.logs,
    SWEEPER_INTERVAL_MS: '300', STUCK_AFTER_MS: '500', EXPIRE_AFTER_MS: '3000',
    // An order the killed process's sweeper had claimed stays leased to it until the lease lapses
    // (60 s by default, longer than the settle window below): a short lease lets the restarted
    // sweeper take it within the window, as the default does in a shop within a minute.
    SWEEPER_LEASE_MS: '3000',
  };
  const shopUrl = `http://127.0.0.1:${String(shopPort)}`;
  const kinds: Journey[] = ['direct', '3ds', 'hosted'];
  const shoppers: Shopper[] = Array.from({ length: size.crash.checkouts }, (_, i) => ({
    orderNo: `CRASH-${Date.now().toString(36)}-${String(i)}`, journey: kinds[i % 3]!, orderId: null, done: false,
  }));
  let proc: ShopProcess | null = await startShopProcess(env);
  const serverErrors: string[] = [];
  const browser = (): Browser => new Browser({ pages, timeoutMs: 10_000, onServerError: (url, status) => serverErrors.push(`${String(status)} ${new URL(url).pathname}`) });

  const checkout = async (s: Shopper): Promise<void> => {
    const res = await fetch(`${shopUrl}/shop/orders`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orderNo: s.orderNo, amount: 1500 }), signal: AbortSignal.timeout(10_000),
    });
    if (res.status !== 200) throw new Error(`order ${s.orderNo}: ${String(res.status)}`);
    const { orderId, payUrl } = (await res.json()) as { orderId: string; payUrl: string };
    if (s.orderId !== null && s.orderId !== orderId) throw new Error(`order ${s.orderNo} changed id after the restart`);
    s.orderId = orderId;
    const b = browser();
    // An order already sent to the gateway shows its result instead of a second pay form.
    if ((await b.get(payUrl)).url.includes('/checkout/result/')) {
      s.done = true;
      return;
    }
    await journey(s.journey, b, payUrl, s.journey === '3ds' ? CARD.challenge : CARD.approve);
    s.done = true;
  };

  try {
    let acknowledged = 0;
    const kill: { done: Promise<void> | null } = { done: null };
    await pool(shoppers, Math.max(4, Math.ceil(size.crash.checkouts / 5)), async (s) => {
      if (kill.done !== null) return;
      await checkout(s)
        .catch(() => undefined)
        .finally(() => {
          if (s.orderId !== null) acknowledged++;
          if (acknowledged >= size.crash.killAfterOrders && kill.done === null) kill.done = proc?.kill() ?? null;
        });
    });
    await kill.done;
    const inFlight = shoppers.filter((s) => s.orderId !== null && !s.done).length;
    report.figure('orders acknowledged before the kill', shoppers.filter((s) => s.orderId !== null).length);
    report.figure('journeys cut by the kill', inFlight);
    const afterKill = [integrity(files.shop), integrity(files.sandbox)];

    proc = await startShopProcess(env);
    // Every shopper comes back: same order number (the shop's create is idempotent), then pays.
    const retried = await pool(shoppers.filter((s) => !s.done), 8, (s) => checkout(s).then(() => null, (err: unknown) => `${s.orderNo}: ${err instanceof Error ? err.message : String(err)}`));
    report.check('every shopper can finish after the restart (same order, same id)', shoppers.length, retried.filter((r): r is string => r !== null));

    // Let the restarted sweeper settle what the kill left open.
    let ledger = await gatewayLedger(proc.gatewayUrl);
    for (let i = 0; i < 60; i++) {
      const store = createSqliteStore({ path: files.shop, busyTimeoutMs: 5000 });
      const { found } = await readOrders(store, shoppers.map((s) => s.orderNo));
      await store.close();
      ledger = await gatewayLedger(proc.gatewayUrl);
      if (ledgerMismatches(found.map((f) => f.order), ledger).length === 0 && found.every((f) => !OPEN_STATES.includes(f.order.state))) break;
      await sleep(500);
    }
    await proc.stop();
    proc = null;

    const store = createSqliteStore({ path: files.shop });
    const { found, missing } = await readOrders(store, shoppers.map((s) => s.orderNo));
    await store.close();
    report.runs = shoppers.length;
    report.ordersLost = missing.length;
    report.check('no order lost: every order the shop acknowledged exists after the restart', shoppers.length, missing.map((m) => `${m} missing`));
    const atEnd = [integrity(files.shop), integrity(files.sandbox)];
    report.check('both SQLite files pass PRAGMA integrity_check after the kill and at the end', 4, [...afterKill, ...atEnd].filter((r) => r !== 'ok'));
    report.check('the sweeper settles every order to the ledger state', found.length, ledgerMismatches(found.map((f) => f.order), ledger));
    const authorises = new Map<string, number>();
    for (const line of readJsonLines<{ msg?: string; operation?: string; orderNo?: string }>(files.logs)) {
      if (line.msg === 'sandbox request' && line.operation === 'authorise' && line.orderNo) authorises.set(line.orderNo, (authorises.get(line.orderNo) ?? 0) + 1);
    }
    const doubles = [...ledgerDoubleCharges(ledger), ...[...authorises].filter(([, n]) => n > 1).map(([no, n]) => `${no}: authorise sent ${String(n)} times`)];
    report.check('no payment charged twice and no authorise re-sent across the crash', shoppers.length, doubles);
    report.doubleCharges = doubles.length;
    const hooks = readJsonLines<HookCall>(files.hooks).filter((h) => h.hook === 'onTransition');
    const repeated: string[] = [];
    for (const s of found) {
      for (const t of s.transitions) {
        // Counted by eventId: a hook cut by the kill after it ran is delivered again (at least once) under the same id.
        const calls = new Set(hooks.filter((h) => h.orderNo === s.order.orderNo && h.from === t.from && h.to === t.to).map((h) => h.eventId)).size;
        if (calls > s.transitions.filter((x) => x.from === t.from && x.to === t.to).length) repeated.push(`${s.order.orderNo} ${String(t.from)}→${String(t.to)}: ${String(calls)} calls`);
      }
    }
    report.check('no transition owed its hook twice across the crash (one eventId per stored transition)', found.length, repeated);
    report.check('no 5xx answered to a shopper', shoppers.length, serverErrors.filter((e) => !e.includes('/v1/')));
    scanner.sqliteFile(files.shop);
    scanner.sqliteFile(files.sandbox);
    for (const line of readJsonLines<unknown>(files.logs)) scanner.text('shop process log', JSON.stringify(line));
    report.check('no card number, CVV or expiry in any row, log line or page', scanner.scanned, scanner.findings);
    report.check('every page has the strict CSP and no inline handler', pages.pages, [...pages.cspFailures, ...pages.inlineFailures]);
    report.tried =
      `${String(shoppers.length)} checkouts (direct card, 3-D Secure, hosted page) against a shop process, SIGKILLed after ${String(size.crash.killAfterOrders)} ` +
      'orders were acknowledged, restarted on the same SQLite files and ports; every shopper then came back and finished, and the restarted sweeper ran.';
  } finally {
    await proc?.kill();
    rmSync(dir, { recursive: true, force: true });
  }
  return report.finish();
}
