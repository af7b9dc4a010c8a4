/**
 * Gateway faults: every money-moving or reading call the shop makes (authorise, checkout,
 * capture, refund, query, payout) meets a timeout, an HTTP 500, a malformed reply, a reset
 * connection or a slow reply. The shop must see a typed KitError with a stable code for each
 * failed call, never re-send a call that may have moved money, and after the sweeper (or a
 * query sync) every order must match the sandbox's ledger.
 */
import { randomUUID } from 'node:crypto';
import { isKitError } from '../../../server/errors.js';
import type { FaultKind } from '../../../server/sandbox/index.js';
import { Browser } from '../../helpers/browser.js';
import { CardScanner } from '../support/card-scan.js';
import { CARD } from '../../integration/checkout/journeys-harness.js';
import { payOnHostedPage, payWithCard } from '../support/journeys.js';
import { ledgerDoubleCharges, ledgerMismatches, resentRequests } from '../support/ledger.js';
import { readOrders } from '../support/orders.js';
import { PageChecker } from '../support/pages.js';
import { Report, type ScenarioResult } from '../support/result.js';
import { pool } from '../support/rng.js';
import { startShop, type Shop } from '../support/shop.js';
import type { Size } from '../support/sizes.js';

const OPERATIONS = ['authorise', 'checkout', 'capture', 'refund', 'retrievalTrans', 'payout'] as const;
type Operation = (typeof OPERATIONS)[number];
const FAULTS = ['timeout', 'http500', 'malformed', 'reset', 'latency'] as const satisfies readonly FaultKind[];
type Fault = (typeof FAULTS)[number];

/** The stable code the shop must see for each fault (a slow reply is no failure). */
const EXPECTED_CODE: Record<Fault, string | null> = {
  timeout: 'ERR_TRANSPORT_TIMEOUT',
  http500: 'ERR_GATEWAY_HTTP',
  malformed: 'ERR_PROTOCOL_MALFORMED',
  reset: 'ERR_TRANSPORT_CONNECTION',
  latency: null,
};

interface Outcome {
  /** The error code the shop saw, or null when the call succeeded. */
  code: string | null;
  orderNo: string | null;
}

interface Cell {
  shop: Shop;
  browser: () => Browser;
  fault: Fault;
  n: number;
}

const codeOf = (err: unknown): string => (isKitError(err) ? err.code : `untyped ${err instanceof Error ? err.name : typeof err}`);

function addFault(shop: Shop, fault: Fault, operation: Operation | 'checkout', orderNo?: string, times = 1): void {
  shop.sandbox.faults.add({ kind: fault, operation, times, latencyMs: 300, ...(orderNo === undefined ? {} : { orderNo }) });
}

async function newOrder(cell: Cell, prefix: string): Promise<{ orderNo: string; payUrl: string }> {
  const orderNo = `${prefix}-${cell.fault}-${String(cell.n)}-${randomUUID().slice(0, 8)}`;
  const { payUrl } = await cell.shop.createOrder(orderNo, 1000 + cell.n);
  return { orderNo, payUrl };
}

/** An order the kit holds as authorised (manual capture), paid through the pay page. */
async function authorised(cell: Cell, prefix: string) {
  const { orderNo, payUrl } = await newOrder(cell, prefix);
  await payWithCard(cell.browser(), payUrl, CARD.approve);
  const order = await cell.shop.kit.store.getByOrderNo(orderNo);
  if (order?.state !== 'authorized' || order.transactionId === null) throw new Error(`${orderNo} was not authorised: ${order?.state ?? 'missing'}`);
  return order as typeof order & { transactionId: string };
}

const RUNS: Record<Operation, (cell: Cell) => Promise<Outcome>> = {
  async authorise(cell) {
    const { orderNo, payUrl } = await newOrder(cell, 'F-AUTH');
    addFault(cell.shop, cell.fault, 'authorise', orderNo);
    await payWithCard(cell.browser(), payUrl, CARD.approve);
    // What the pay route saw is in its log line (an order a notification settled meanwhile keeps no event of it).
    const line = cell.shop.logs.find((l) => l.includes(`"orderNo":"${orderNo}"`) && /Payment outcome unknown|Payment refused/.test(l));
    const code = line === undefined ? null : (JSON.parse(line) as { code?: string }).code ?? 'no code';
    return { code, orderNo };
  },
  async checkout(cell) {
    // The shopper's browser posts the hosted form; the shop's own call is checkoutPage.
    const { orderNo, payUrl } = await newOrder(cell, 'F-HOST');
    addFault(cell.shop, cell.fault, 'checkout', orderNo);
    await payOnHostedPage(cell.browser(), payUrl, CARD.approve).catch(() => undefined);
    const second = await newOrder(cell, 'F-HOSTPAGE');
    addFault(cell.shop, cell.fault, 'checkout', second.orderNo);
    try {
      await cell.shop.kit.client.payments.checkoutPage({
        order_no: second.orderNo, currency: 'USD', amount: 1000 + cell.n, items: [{ name: 'Tea pot', sku: 'TP-1', unitPrice: 1000 + cell.n, quantity: 1 }],
        shopper_id: 'shopper-1', shopper_email: 'shopper@example.test', website: 'shop.test',
      });
      return { code: null, orderNo };
    } catch (err) {
      return { code: codeOf(err), orderNo };
    }
  },
  async capture(cell) {
    const order = await authorised(cell, 'F-CAPT');
    addFault(cell.shop, cell.fault, 'capture', order.orderNo);
    const [item] = await cell.shop.kit.client.batch.capture([{ transaction_id: order.transactionId, order_no: order.orderNo, currency: order.currency, amount: order.amount }]);
    // An unknown outcome is settled by query (the admin's "query sync"), never by re-sending.
    await cell.shop.kit.engine.confirm(order.id, 'admin', 'staff').catch(() => undefined);
    return { code: item?.error === null || item?.error === undefined ? null : codeOf(item.error), orderNo: order.orderNo };
  },
  async refund(cell) {
    const order = await authorised(cell, 'F-REFD');
    const [captured] = await cell.shop.kit.client.batch.capture([{ transaction_id: order.transactionId, order_no: order.orderNo, currency: order.currency, amount: order.amount }]);
    if (captured?.ok !== true) throw new Error(`capture of ${order.orderNo} failed`);
    await cell.shop.kit.engine.confirm(order.id, 'admin', 'staff');
    addFault(cell.shop, cell.fault, 'refund', order.orderNo);
    const [item] = await cell.shop.kit.client.batch.refund([
      { transaction_id: order.transactionId, order_no: order.orderNo, currency: order.currency, amount: order.amount, refund_amount: 300, refund_reason: 'fault' },
    ]);
    await cell.shop.kit.engine.confirm(order.id, 'admin', 'staff').catch(() => undefined);
    return { code: item?.error === null || item?.error === undefined ? null : codeOf(item.error), orderNo: order.orderNo };
  },
  async retrievalTrans(cell) {
    const order = await authorised(cell, 'F-QURY');
    // The payment's own notification confirms by query too: let it pass before the fault is set.
    await cell.shop.sandbox.notifier.flush();
    // Every attempt of the read (it retries three times) meets the fault.
    addFault(cell.shop, cell.fault, 'retrievalTrans', order.orderNo, 3);
    try {
      await cell.shop.kit.client.queries.transactions({ orders: [order.orderNo] }, { timeoutMs: 1000 });
      return { code: null, orderNo: order.orderNo };
    } catch (err) {
      return { code: codeOf(err), orderNo: order.orderNo };
    }
  },
  async payout(cell) {
    addFault(cell.shop, cell.fault, 'payout', undefined, 1);
    try {
      await cell.shop.kit.client.payouts.create({
        request_id: randomUUID(), payment_amount: (100 + cell.n) * 100, payment_currency: 'EUR', payment_method: 'SWIFT', fee_paid_by: 'PAYER',
        swift_charge_option: 'SHARED', fund_source: 'DepositAccount', reference: `F-${cell.fault}-${String(cell.n)}`,
        beneficiary: {
          entity_type: 'COMPANY', company_name: 'Acme GmbH', address: { city: 'Berlin', country_code: 'DE', street_address: 'Hauptstr. 1' },
          bank_details: { account_currency: 'EUR', account_name: 'Acme', iban: 'DE89370400440532013000', swift_code: 'COBADEFFXXX' },
        },
      });
      return { code: null, orderNo: null };
    } catch (err) {
      return { code: codeOf(err), orderNo: null };
    }
  },
};

export async function gatewayFaults(size: Size): Promise<ScenarioResult> {
  const report = new Report('gateway-faults', 'Gateway faults', size.name);
  const scanner = new CardScanner();
  const shop = await startShop({ captureMode: 'manual', timeoutMs: 1000 });
  const pages = new PageChecker(scanner, (url, status) => url.startsWith(shop.gateway.baseUrl) && status === 500);
  const serverErrors: string[] = [];
  const browser = (): Browser => new Browser({ pages, timeoutMs: 2500, onServerError: (url, status) => {
    if (url.startsWith(shop.url)) serverErrors.push(`${String(status)} ${new URL(url).pathname}`);
  } });
  const codeProblems: string[] = [];
  const orderNos = new Set<string>();
  let runs = 0;
  try {
    for (const operation of OPERATIONS) {
      for (const fault of FAULTS) {
        // Payout faults match no order number: one run at a time takes the one fault.
        const outcomes = await pool(Array.from({ length: size.faults.perCell }, (_, n) => n), operation === 'payout' ? 1 : 4, (n) => RUNS[operation]({ shop, browser, fault, n }));
        for (const o of outcomes) {
          runs++;
          if (o.orderNo !== null) orderNos.add(o.orderNo);
          // A truncated HTML page is passed to the browser as it is: the kit cannot tell it apart.
          const expected = operation === 'checkout' && fault === 'malformed' ? null : EXPECTED_CODE[fault];
          if (o.code !== expected) codeProblems.push(`${operation} ${fault}: saw ${o.code ?? 'success'}, expected ${expected ?? 'success'}`);
        }
        shop.sandbox.faults.clear();
      }
    }
    // The sweeper, first while every query fails: nothing may be expired on a failed query.
    const before = await readOrders(shop.kit.store, [...orderNos]);
    shop.sandbox.faults.add({ kind: 'http500', operation: 'retrievalTrans' });
    const blind = await shop.kit.sweeper.runOnce();
    shop.sandbox.faults.clear();
    const during = await readOrders(shop.kit.store, [...orderNos]);
    const changed = during.found.filter((s) => before.found.find((b) => b.order.id === s.order.id)?.order.state !== s.order.state);
    report.check('a sweeper run whose queries fail changes no order (nothing expired blind)', during.found.length, changed.map((s) => `${s.order.orderNo}: ${s.order.state}`));
    report.figure('orders the blind sweeper left for later', blind.errors);

    await shop.sandbox.notifier.flush();
    await shop.kit.sweeper.runOnce();
    await shop.sandbox.notifier.flush();
    const { found, missing } = await readOrders(shop.kit.store, [...orderNos]);
    report.runs = runs;
    report.check('the shop saw the typed KitError with the stable code for each failed call (and none for a slow reply)', runs, codeProblems);
    const mismatches = ledgerMismatches(found.map((s) => s.order), shop.sandbox.ledger);
    report.check('after the sweeper and query sync every order is in the state the ledger says', orderNos.size, [...missing.map((m) => `${m}: missing`), ...mismatches]);
    const doubles = [...ledgerDoubleCharges(shop.sandbox.ledger, orderNos), ...resentRequests(shop.calls)];
    const payoutsPerRequest = new Map<string, number>();
    for (const p of shop.sandbox.ledger.payouts()) payoutsPerRequest.set(p.requestId, (payoutsPerRequest.get(p.requestId) ?? 0) + 1);
    doubles.push(...[...payoutsPerRequest].filter(([, n]) => n > 1).map(([id]) => `payout ${id} paid twice`));
    report.check('the ledger shows no payment charged twice, no refund or payout sent twice; no money-moving call was re-sent', runs, doubles);
    report.doubleCharges = doubles.length;
    report.ordersLost = missing.length;
    report.check('the shop answered no shopper with a 5xx', pages.pages, serverErrors);
    report.figure('gateway requests sent by the kit', shop.calls.length);
    report.figure('pages checked', pages.pages);
    shop.scan(scanner);
    report.check('every page has the strict CSP', pages.pages, pages.cspFailures);
    report.check('no inline handler or style on any page', pages.pages, pages.inlineFailures);
    report.check('no card number, CVV or expiry in any row, log line or page', scanner.scanned, scanner.findings);
    report.tried =
      `${String(OPERATIONS.length)} operations (authorise, hosted checkout, capture, refund, query, payout) × ${String(FAULTS.length)} faults ` +
      `(timeout, HTTP 500, malformed reply, connection reset, slow reply) × ${String(size.faults.perCell)} runs, then a sweeper run with every query failing, then the sweeper.`;
  } finally {
    await shop.close();
  }
  return report.finish();
}
