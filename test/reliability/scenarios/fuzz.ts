/**
 * Hostile input: seeded fast-check fuzzing of every public route of the kit (pay, device data,
 * return, cancel, result, notify), every admin action and every sandbox endpoint. Never a 5xx or
 * a crash, always a 4xx naming the field, and nothing changed: no order moved, no money.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { isKitError } from '../../../server/errors.js';
import { createGatewayClient } from '../../../server/gateway/client.js';
import { CardScanner } from '../support/card-scan.js';
import { CARD } from '../../integration/checkout/journeys-harness.js';
import { payWithCard } from '../support/journeys.js';
import { Browser } from '../../helpers/browser.js';
import { Report, type ScenarioResult } from '../support/result.js';
import { pool } from '../support/rng.js';
import { ACCOUNT_ID, MERCHANT_ID, STAFF_HEADER, startShop, type Shop } from '../support/shop.js';
import type { Size } from '../support/sizes.js';
import { fuzzTargets, type Fixture } from './fuzz-targets.js';

async function fixture(shop: Shop): Promise<Fixture> {
  const run = Date.now().toString(36);
  const paid = await shop.createOrder(`FUZZ-PAID-${run}`, 2500);
  await payWithCard(new Browser(), paid.payUrl, CARD.approve);
  const order = await shop.kit.store.get(paid.orderId);
  if (order?.state !== 'paid' || order.transactionId === null) throw new Error('the fuzz fixture order was not paid');
  const created = await shop.createOrder(`FUZZ-PAY-${run}`, 2500);
  const page = await fetch(created.payUrl);
  const payCookie = (page.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const payCsrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const admin = await fetch(`${shop.url}/admin/`, { headers: { [STAFF_HEADER]: 'fuzz' } });
  const adminCookie = (admin.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const adminCsrf = /name="_csrf" value="([^"]+)"/.exec(await admin.text())?.[1] ?? '';
  const urls = shop.kit.context.urls;
  return {
    shop,
    pay: { url: created.payUrl, cookie: payCookie, csrf: payCsrf },
    paid: { id: order.id, orderNo: order.orderNo, transactionId: order.transactionId, amount: order.amount, returnUrl: urls.return(order.id), cancelUrl: urls.cancel(order.id), resultUrl: urls.result(order.id) },
    admin: { cookie: adminCookie, csrf: adminCsrf },
    paidOrder: order,
  };
}

/** What must never change under hostile input: orders' states and money, the gateway's records. */
async function snapshot(shop: Shop, fx: Fixture): Promise<string> {
  const orders = await shop.kit.store.list({ limit: 100_000 });
  const pick = (id: string) => {
    const o = orders.find((x) => x.id === id);
    return o && { state: o.state, captured: o.capturedAmount, refunded: o.refundedAmount, tx: o.transactionId, submitted: o.data.submittedAt ?? null };
  };
  const ledger = shop.sandbox.ledger;
  const tx = ledger.transaction(fx.paid.orderNo);
  return JSON.stringify({
    orders: orders.length, paid: pick(fx.paid.id), pay: orders.filter((o) => o.data.submittedAt !== undefined).length,
    refunds: ledger.refunds().length, payouts: ledger.payouts().length, subscriptions: ledger.subscriptions().length, tx: tx && [tx.paymentStatus, tx.refundedAmount],
  });
}

/** A gateway that answers the kit's client with hostile XML: every answer must be a typed error. */
async function hostileReplies(cases: number, seed: number): Promise<{ tried: number; failures: string[] }> {
  const bodies = fc.sample(
    fc.oneof(
      fc.constantFrom(
        '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><respon><note>&b;</note></respon>',
        `<respon>${'<a>'.repeat(10_000)}${'</a>'.repeat(10_000)}</respon>`,
        `<respon><note>${'x'.repeat(200_000)}</note></respon>`,
        '<respon><__proto__><polluted>1</polluted></__proto__></respon>',
        '<respon><order_no>A</order_no><order_no>B</order_no></respon>',
        '',
      ),
      fc.string({ maxLength: 300 }).map((s) => `<respon>${s}</respon>`),
      fc.string({ maxLength: 300 }),
    ),
    { numRuns: cases, seed },
  );
  let next = 0;
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(bodies[next++ % bodies.length]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = createGatewayClient({ baseUrl: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: 'hostile-gateway-key', timeoutMs: 5000 });
  const failures: string[] = [];
  try {
    for (let i = 0; i < bodies.length; i++) {
      try {
        await client.payments.authorise({
          order_no: `HOSTILE-${String(i)}`, currency: 'USD', amount: 1000, items: [{ name: 'Tea', sku: 'T', unitPrice: 1000, quantity: 1 }], website: 'shop.test',
          shopper_id: 's', shopper_email: 's@example.test', shopper_ip: '127.0.0.1', card: '4242424242424242', expiration_month: '12', expiration_year: '2035', security_code: '737',
        });
        failures.push(`accepted: ${(bodies[i] ?? '').slice(0, 80)}`);
      } catch (err) {
        if (!isKitError(err) || !err.code.startsWith('ERR_PROTOCOL')) failures.push(`${isKitError(err) ? err.code : String(err)} for ${(bodies[i] ?? '').slice(0, 80)}`);
      }
    }
  } finally {
    server.close();
    server.closeAllConnections();
  }
  return { tried: bodies.length, failures };
}

export async function fuzz(size: Size): Promise<ScenarioResult> {
  const report = new Report('fuzz', 'Hostile input (fast-check)', size.name);
  const scanner = new CardScanner();
  const shop = await startShop({ admin: true });
  const n = size.fuzz.casesPerRoute;
  try {
    const fx = await fixture(shop);
    let runs = 0;
    let cut = 0;
    let fewest = n;
    const targets = fuzzTargets(fx);
    for (const [i, target] of targets.entries()) {
      const before = await snapshot(shop, fx);
      const cases = fc.sample(target.arb, { numRuns: n, seed: size.seed + i });
      const failures: string[] = [];
      const deadline = Date.now() + size.fuzz.msPerRoute;
      let sent = 0;
      await pool(cases, 16, async (input) => {
        if (Date.now() > deadline) return;
        sent++;
        const problem = await target.send(input).catch((err: unknown) => `the request failed: ${err instanceof Error ? err.message : String(err)}`);
        if (problem !== null) failures.push(problem);
      });
      if (sent < cases.length) cut++;
      fewest = Math.min(fewest, sent);
      runs += sent;
      const after = await snapshot(shop, fx);
      // The device-data target pays fresh orders on purpose: its cases add orders.
      const changed = target.route.includes('device data') || before === after ? [] : [`before ${before}`, `after  ${after}`];
      report.check(`${target.route}: never a 5xx or a crash, always the expected 4xx naming the field`, sent, failures);
      report.check(`${target.route}: nothing changed`, 1, changed);
    }
    const replies = await hostileReplies(Math.max(50, Math.floor(n / 10)), size.seed);
    runs += replies.tried;
    report.check('hostile gateway replies (XML bombs, entities, deep or huge XML, prototype keys): always a typed ERR_PROTOCOL error', replies.tried, replies.failures);
    report.runs = runs;
    report.figure('routes', targets.length);
    report.figure('cases per route', n);
    report.figure('routes cut by the time budget', cut);
    report.figure('fewest cases sent to a route', fewest);
    shop.scan(scanner);
    report.check('no card number, CVV or expiry in any row or log line', scanner.scanned, scanner.findings);
    report.tried =
      `${String(targets.length)} route targets × up to ${String(n)} seeded fast-check cases (at most ${String(size.fuzz.msPerRoute / 1000)} s per target): the kit's pay (form and device data), return, cancel, result and notify routes, ` +
      'every admin action, and every sandbox endpoint; hostile field values (unicode tricks, negative, zero and overflowing amounts, wrong currencies, injection text, ' +
      'huge strings) and hostile bodies (XML bombs, external entities, deep JSON, 1.1 MB bodies, wrong content types); plus hostile XML replies to the client.';
  } finally {
    await shop.close();
  }
  return report.finish();
}
