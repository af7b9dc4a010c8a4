/**
 * Several instances: two shop processes share one PostgreSQL schema, both sweepers running. Each
 * order's notifications and the shopper's return are posted to both instances at once, several
 * times. Exactly one transition and one hook call per fact, every order in the ledger's state,
 * and no lease left held.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { OPEN_STATES } from '../../../server/orders/state-machine.js';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import { createSandbox } from '../../../server/sandbox/index.js';
import { Browser, firstForm, payForm, type Form } from '../../helpers/browser.js';
import { CardScanner } from '../support/card-scan.js';
import { hookMismatches, ledgerDoubleCharges, ledgerMismatches } from '../support/ledger.js';
import { readOrders, type StoredOrder } from '../support/orders.js';
import { PageChecker } from '../support/pages.js';
import { freePort, readJsonLines, startShopProcess, type ShopProcess } from '../support/process.js';
import { Report, type ScenarioResult } from '../support/result.js';
import { pool } from '../support/rng.js';
import { ACCOUNT_ID, MERCHANT_ID, type HookCall } from '../support/shop-app.js';
import { capturingLogger } from '../support/shop.js';
import type { Size } from '../support/sizes.js';
import { CARD, cardFields } from '../../integration/checkout/journeys-harness.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

export async function multiInstance(size: Size): Promise<ScenarioResult> {
  const report = new Report('multi-instance', 'Two instances on PostgreSQL', size.name);
  report.tried =
    `${String(size.multi.orders)} 3-D Secure orders over two shop processes sharing one PostgreSQL schema; each order's notification and return ` +
    `posted ${String(size.multi.copies)} times to both instances at once while both sweepers ran every 200 ms.`;
  if (!TEST_DATABASE_URL) {
    report.skip('TEST_DATABASE_URL is not set: two processes cannot share a PostgreSQL database');
    console.warn('\n*** reliability: several-instances scenario SKIPPED: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) ***\n');
    return report.finish();
  }
  const scanner = new CardScanner();
  const pages = new PageChecker(scanner);
  const dir = mkdtempSync(join(tmpdir(), 'reliability-multi-'));
  const schema = `rel_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const db = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
  const signKey = `multi-sign-key-${randomUUID()}`;
  const logs: string[] = [];
  const sandbox = createSandbox({ accounts: [{ merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey }], notifyTimeScale: 0.0001, logger: capturingLogger(logs), env: {} });
  const gateway = await sandbox.listen(0);
  const procs: ShopProcess[] = [];
  try {
    const ports = [await freePort(), await freePort()];
    const common = {
      DATABASE_URL: TEST_DATABASE_URL, PG_SCHEMA: schema, GATEWAY_URL: gateway.baseUrl, SIGN_KEY: signKey, TOKEN_SECRET: `multi-token-${randomUUID()}`,
      SWEEPER_INTERVAL_MS: '200', STUCK_AFTER_MS: '300', EXPIRE_AFTER_MS: '600000',
    };
    // Both start at once: their migrations race on the empty schema.
    procs.push(...(await Promise.all(ports.map((port, i) => startShopProcess({
      ...common, SHOP_PORT: String(port), HOOK_LOG: join(dir, `hooks-${String(i)}.jsonl`), LOG_FILE: join(dir, `log-${String(i)}.jsonl`),
    })))));
    const urls = ports.map((p) => `http://127.0.0.1:${String(p)}`);
    sandbox.faults.add({ kind: 'dropNotification' });

    // Each order: created on one instance, card with a challenge, pass or fail at the issuer; the
    // browser stops before posting back to the shop.
    const run = Date.now().toString(36);
    const returns = new Map<string, Form>();
    const orderNos = Array.from({ length: size.multi.orders }, (_, i) => `MULTI-${run}-${String(i)}`);
    await pool(orderNos, 8, async (orderNo, i) => {
      const shop = urls[i % 2]!;
      const res = await fetch(`${shop}/shop/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orderNo, amount: 2000 + i }) });
      const { payUrl } = (await res.json()) as { payUrl: string };
      const browser = new Browser({ pages });
      const pay = await browser.get(payUrl);
      const toIssuer = await browser.submit(pay, payForm(pay, 'card'), cardFields(CARD.challenge));
      const issuer = await browser.submit(toIssuer, firstForm(toIssuer));
      const back = await browser.submit(issuer, firstForm(issuer), {}, { name: 'decision', value: i % 3 === 2 ? 'fail' : 'pass' });
      returns.set(orderNo, firstForm(back));
    });
    const deliveries = sandbox.ledger.notifications().filter((n) => n.status === 'dropped');

    // Fan-out: every notification and every return to both instances, several times, at once.
    const statuses = new Map<number, number>();
    const post = async (url: string, fields: Record<string, string>): Promise<void> => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(), redirect: 'manual' });
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    };
    let requests = 0;
    await pool(orderNos, 16, async (orderNo) => {
      const sends: Promise<void>[] = [];
      const ret = returns.get(orderNo)!;
      for (let c = 0; c < size.multi.copies; c++) {
        for (const shop of urls) {
          for (const d of deliveries.filter((n) => n.orderNo === orderNo)) sends.push(post(`${shop}/checkout/notify`, d.fields));
          sends.push(post(`${shop}${new URL(ret.action).pathname}`, ret.fields));
        }
      }
      requests += sends.length;
      await Promise.all(sends);
    });

    // Both sweepers settle anything a busy answer left open.
    const reader = await createPostgresStore({ pool: db, schema, migrate: false });
    let found: StoredOrder[] = [];
    let missing: string[] = [];
    for (let i = 0; i < 60; i++) {
      ({ found, missing } = await readOrders(reader, orderNos));
      if (found.every((s) => !OPEN_STATES.includes(s.order.state)) && ledgerMismatches(found.map((s) => s.order), sandbox.ledger).length === 0) break;
      await sleep(500);
    }
    await sleep(1000);
    const held = await db.query(`SELECT order_no FROM "${schema}".checkout_orders WHERE lease_owner IS NOT NULL AND lease_until > now()`);
    await Promise.all(procs.map((p) => p.stop()));
    procs.length = 0;
    ({ found, missing } = await readOrders(reader, orderNos));

    report.runs = requests;
    report.figure('orders', orderNos.length);
    report.figure('notification and return posts', requests);
    for (const [status, n] of statuses) report.figure(`answers ${String(status)}`, n);
    report.check('every order is in the state the ledger says', orderNos.length, [...missing.map((m) => `${m}: missing`), ...ledgerMismatches(found.map((s) => s.order), sandbox.ledger)]);
    const hooks = [0, 1].flatMap((i) => readJsonLines<HookCall>(join(dir, `hooks-${String(i)}.jsonl`)));
    report.check('exactly one stored transition and one hook call (across both processes) per fact', found.length, [
      ...found.filter((s) => new Set(s.transitions.map((t) => `${String(t.from)}>${String(t.to)}`)).size !== s.transitions.length).map((s) => `${s.order.orderNo}: repeated transition`),
      ...hookMismatches(found, hooks),
    ]);
    report.check('no lease held once the work is done', found.length, (held.rows as { order_no: string }[]).map((r) => `${r.order_no} still leased`));
    report.check('no 5xx other than 503 (busy: retried later)', requests, [...statuses].filter(([s]) => s >= 500 && s !== 503).map(([s, n]) => `${String(n)} × ${String(s)}`));
    const doubles = ledgerDoubleCharges(sandbox.ledger);
    report.check('no payment charged twice', orderNos.length, doubles);
    report.doubleCharges = doubles.length;
    report.ordersLost = missing.length;
    await scanner.postgres(db, schema);
    for (let i = 0; i < 2; i++) for (const line of readJsonLines<unknown>(join(dir, `log-${String(i)}.jsonl`))) scanner.text('shop process log', JSON.stringify(line));
    for (const line of logs) scanner.text('sandbox log', line);
    report.check('no card number, CVV or expiry in any PostgreSQL row, log line or page', scanner.scanned, scanner.findings);
    report.check('every page has the strict CSP and no inline handler', pages.pages, [...pages.cspFailures, ...pages.inlineFailures]);
  } finally {
    await Promise.all(procs.map((p) => p.kill()));
    await gateway.close();
    await sandbox.close();
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await db.end();
    rmSync(dir, { recursive: true, force: true });
  }
  return report.finish();
}
