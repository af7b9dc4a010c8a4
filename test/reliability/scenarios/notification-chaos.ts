/**
 * Notification chaos: paid, refunded and declined orders whose notifications the sandbox
 * delivers 1–5 times each, in shuffled order, 10 % of them with a bad signature, in batches of
 * 50. Every order must end in the ledger's state, every hook fire once per stored transition,
 * and forged deliveries change nothing and be recorded as rejected.
 */
import { CardScanner } from '../support/card-scan.js';
import { hookMismatches, ledgerDoubleCharges, ledgerMismatches, resentRequests } from '../support/ledger.js';
import { cardPayment, control, readOrders } from '../support/orders.js';
import { Report, type ScenarioResult } from '../support/result.js';
import { createRng, pool } from '../support/rng.js';
import { startShop, type Shop } from '../support/shop.js';
import type { Size } from '../support/sizes.js';

type Kind = 'paid' | 'refunded' | 'declined';

interface Plan {
  orderNo: string;
  amount: number;
  kind: Kind;
  /** Refund amounts, in order (one full, one partial, or two partials). */
  refunds: number[];
  control: boolean;
}

const APPROVE = '4242424242424242';
const DECLINE = '4000000000000002';

function plan(size: Size, run: string): Plan[] {
  const rng = createRng(size.seed);
  const kinds: Kind[] = ['paid', 'refunded', 'declined'];
  return Array.from({ length: size.chaos.orders }, (_, i) => {
    const kind = kinds[i % 3]!;
    const amount = 1000 + rng.int(9000);
    const shape = rng.int(3);
    const refunds = kind !== 'refunded' ? [] : shape === 0 ? [amount] : shape === 1 ? [Math.floor(amount / 3)] : [Math.floor(amount / 4), Math.floor(amount / 3)];
    return { orderNo: `CHAOS-${run}-${String(i)}`, amount, kind, refunds, control: i < size.chaos.controlOrders };
  });
}

async function setUp(shop: Shop, plans: Plan[]): Promise<void> {
  const notifyUrl = shop.kit.context.urls.notify();
  await pool(plans, 8, async (p) => {
    await shop.createOrder(p.orderNo, p.amount);
    const paid = await shop.kit.client.payments.authorise(cardPayment(p.orderNo, p.amount, p.kind === 'declined' ? DECLINE : APPROVE, notifyUrl), { timeoutMs: 30_000 });
    if (paid.transactionId === null) throw new Error(`no transaction id for ${p.orderNo}`);
    for (const refund of p.refunds) {
      const [result] = await shop.kit.client.batch.refund([
        { transaction_id: paid.transactionId, order_no: p.orderNo, currency: 'USD', amount: p.amount, refund_amount: refund, refund_reason: 'chaos' },
      ], { timeoutMs: 30_000 });
      if (result?.ok !== true) throw new Error(`refund of ${p.orderNo} failed: ${result?.message ?? 'no answer'}`);
    }
  });
}

export async function notificationChaos(size: Size): Promise<ScenarioResult> {
  const report = new Report('notification-chaos', 'Notification chaos', size.name);
  const scanner = new CardScanner();
  const rng = createRng(size.seed + 1);
  const run = Date.now().toString(36);
  const plans = plan(size, run);
  const orderNos = new Set(plans.map((p) => p.orderNo));
  const shop = await startShop({ notifyTimeScale: size.chaos.notifyTimeScale });
  try {
    // Every notification of the set-up is held back (recorded as dropped), then replayed as chaos.
    shop.sandbox.faults.add({ kind: 'dropNotification' });
    await setUp(shop, plans);
    shop.sandbox.faults.clear();
    const deliveries = shop.sandbox.ledger.notifications().filter((n) => orderNos.has(n.orderNo) && n.status === 'dropped');

    // 1. Control orders receive only forged copies: nothing may change.
    const controlNos = new Set(plans.filter((p) => p.control).map((p) => p.orderNo));
    const controlDeliveries = deliveries.filter((d) => controlNos.has(d.orderNo));
    for (const d of controlDeliveries) await control(shop.gateway.baseUrl, `notifications/${d.id}/bad-signature`);
    await shop.sandbox.notifier.flush();
    const afterForgery = await readOrders(shop.kit.store, [...controlNos]);
    report.check(
      'orders that received only forged notifications are unchanged (still created, no transition, no hook) and the forgery is recorded as rejected',
      controlNos.size,
      afterForgery.found
        .filter((s) => s.order.state !== 'created' || s.order.version !== 0 || s.transitions.length > 0 || !s.eventTypes.includes('notification_rejected') || shop.hookCalls.some((h) => h.orderNo === s.order.orderNo))
        .map((s) => `${s.order.orderNo}: ${s.order.state} v${String(s.order.version)} events ${s.eventTypes.join(',')}`)
        .concat(afterForgery.missing),
    );

    // 2. Chaos: 1–5 genuine copies of each delivery, plus forged copies making 10 % of the sends.
    const sends: { id: string; forged: boolean }[] = [];
    for (const d of deliveries) for (let i = 1 + rng.int(5); i > 0; i--) sends.push({ id: d.id, forged: false });
    const forged = Math.round(sends.length / 9);
    for (let i = 0; i < forged; i++) sends.push({ id: rng.pick(deliveries).id, forged: true });
    const shuffled = rng.shuffle(sends);
    const batches: { id: string; forged: boolean }[][] = [];
    for (let i = 0; i < shuffled.length; i += size.chaos.batch) batches.push(shuffled.slice(i, i + size.chaos.batch));
    await pool(batches, size.chaos.batchesInFlight, async (batch) => {
      const genuine = batch.filter((s) => !s.forged).map((s) => s.id);
      await Promise.all([
        genuine.length === 0 ? Promise.resolve() : control(shop.gateway.baseUrl, 'notifications/shuffle', { ids: genuine }),
        ...batch.filter((s) => s.forged).map((s) => control(shop.gateway.baseUrl, `notifications/${s.id}/bad-signature`)),
      ]);
    });
    await shop.sandbox.notifier.flush();
    await shop.kit.sweeper.runOnce();
    report.runs = sends.length + controlDeliveries.length;
    report.figure('orders', plans.length);
    report.figure('notifications', deliveries.length);
    report.figure('deliveries sent', sends.length);
    report.figure('forged deliveries', forged + controlDeliveries.length);

    const { found, missing } = await readOrders(shop.kit.store, [...orderNos]);
    const mismatches = ledgerMismatches(found.map((s) => s.order), shop.sandbox.ledger);
    report.check('every order ends in the state (and refunded amount) the sandbox ledger says', plans.length, [...missing.map((m) => `${m}: missing`), ...mismatches]);
    report.check('every shop hook fires exactly once per stored transition', found.length, hookMismatches(found, shop.hookCalls));

    const copies = shop.sandbox.ledger.notifications().filter((n) => orderNos.has(n.orderNo) && n.origin !== 'state-change');
    const forgedCopies = copies.filter((n) => n.origin === 'bad-signature');
    report.check(
      'every forged delivery is refused (401) on every attempt',
      forgedCopies.length,
      forgedCopies.filter((n) => n.attempts.length === 0 || n.attempts.some((a) => a.httpStatus !== 401)).map((n) => `${n.orderNo}: ${n.attempts.map((a) => String(a.httpStatus ?? a.error)).join(',')}`),
    );
    const forgedOrders = new Set(forgedCopies.map((n) => n.orderNo));
    report.check(
      'every order that received a forged delivery has it recorded as notification_rejected',
      forgedOrders.size,
      found.filter((s) => forgedOrders.has(s.order.orderNo) && !s.eventTypes.includes('notification_rejected')).map((s) => s.order.orderNo),
    );
    const genuineCopies = copies.filter((n) => n.origin !== 'bad-signature');
    report.check(
      'every genuine delivery is finally acknowledged with a 2xx',
      genuineCopies.length,
      genuineCopies.filter((n) => n.status !== 'delivered').map((n) => `${n.orderNo} ${n.webhooksType}: ${n.status} ${n.attempts.map((a) => String(a.httpStatus ?? a.error)).join(',')}`),
    );
    const doubles = [...ledgerDoubleCharges(shop.sandbox.ledger, orderNos), ...resentRequests(shop.calls, ['authorise', 'capture', 'payout'])];
    report.check('no payment charged twice, no request re-sent', plans.length, doubles);
    report.doubleCharges = doubles.length;
    report.ordersLost = missing.length + mismatches.filter((m) => / shop (created|pending|requires_action), ledger (paid|refunded|partially_refunded|authorized)/.test(m)).length;

    shop.scan(scanner);
    report.check('no card number, CVV or expiry in any row or log line', scanner.scanned, scanner.findings);
    report.tried =
      `${String(plans.length)} orders (paid, refunded in full or in one or two parts, declined); each of their ${String(deliveries.length)} ` +
      `notifications delivered 1–5 times in shuffled batches of ${String(size.chaos.batch)}, ${String(size.chaos.batchesInFlight)} batches at once, ` +
      `with forged copies making 10 % of the ${String(sends.length)} sends; ${String(controlNos.size)} orders first received forged copies only.`;
  } finally {
    await shop.close();
  }
  return report.finish();
}
