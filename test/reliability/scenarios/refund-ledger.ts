/**
 * Refund ledger: paid orders each get `parallel` staff partial refunds posted at once to the
 * admin over real HTTP, while the gateway's refund notifications are replayed to the shop as
 * they appear (several shuffled copies each) and all once more afterwards; then what remains is
 * refunded in one last staff refund. On every order the shop's refunded total must equal the
 * gateway's, refund by refund, with the state that total implies, nothing left pending, nothing
 * flagged, and never more refunded than was captured.
 */
import { formatMoney } from '../../../server/admin/format.js';
import { toWireAmount } from '../../../server/gateway/money.js';
import { refundableOf } from '../../../server/orders/engine-refunds.js';
import type { Order } from '../../../server/orders/types.js';
import { CardScanner } from '../support/card-scan.js';
import { paidOrder, raceRefunds, refundProblems, slowRefundAnswers, Staff } from '../support/refund-race.js';
import { Report, type ScenarioResult } from '../support/result.js';
import { createRng, pool } from '../support/rng.js';
import { startShop } from '../support/shop.js';
import type { Size } from '../support/sizes.js';

export async function refundLedger(size: Size): Promise<ScenarioResult> {
  const report = new Report('refund-ledger', 'Refund ledger', size.name);
  const scanner = new CardScanner();
  const rng = createRng(size.seed + 7);
  const run = Date.now().toString(36);
  const { orders: count, parallel, copies, ordersInFlight } = size.refunds;
  // The reported case first (118.00, refunds of 47.20), then amounts where a few refunds fit.
  const plans = Array.from({ length: count }, (_, i) => {
    const amount = i === 0 ? 11_800 : 2_000 + rng.int(20_000);
    const refund = i === 0 ? 4_720 : Math.max(1, Math.floor(amount / (2 + rng.int(4))) + rng.int(50));
    return { orderNo: `REFUND-${run}-${String(i)}`, amount, refund };
  });
  // Refund answers held back a little, so notifications often land before the answer they belong to.
  const shop = await startShop({ admin: true, notifyTimeScale: 0.00001, kit: { fetch: slowRefundAnswers(createRng(size.seed + 8), 40) } });
  try {
    shop.sandbox.faults.add({ kind: 'dropNotification' });
    const paid = await pool(plans, ordersInFlight, (p) => paidOrder(shop, p.orderNo, p.amount));
    const raced = await pool(plans, ordersInFlight, async (p, i) => raceRefunds(shop, paid[i] as Order, toWireAmount(p.refund, 'USD'), parallel, copies, rng));

    const over = plans.filter((p) => shop.sandbox.ledger.refunds().filter((r) => r.orderNo === p.orderNo).reduce((s, r) => s + r.refundAmount, 0) > p.amount);
    const raceProblems = (await Promise.all(plans.map((p) => refundProblems(shop, p.orderNo)))).flat();
    report.check('after the race, on every order the shop\'s refunded total and refund references equal the gateway\'s, the state matches, nothing pending or flagged', plans.length, raceProblems);
    report.check('the gateway never refunded more than was captured', plans.length, over.map((p) => p.orderNo));
    const refusedWrongly = plans.filter((p, i) => {
      const made = shop.sandbox.ledger.refunds().filter((r) => r.orderNo === p.orderNo).length;
      return made !== Math.min(parallel, Math.floor(p.amount / p.refund)) || (raced[i]?.statuses.filter((s) => s === 303).length ?? 0) !== made;
    });
    report.check('as many refunds were made as fit in the captured amount, and only those were sent', plans.length, refusedWrongly.map((p) => p.orderNo));
    report.check('every replayed refund notification was acknowledged', raced.reduce((s, r) => s + r.notifications, 0), raced.flatMap((r) => r.notificationErrors));

    // What remains stays refundable: one last staff refund brings every order to refunded.
    const followUp: string[] = [];
    await pool(plans, ordersInFlight, async (p) => {
      const order = await shop.kit.store.getByOrderNo(p.orderNo);
      if (order === null) return;
      const remaining = refundableOf(order, await shop.kit.store.listRefunds(order.id));
      if (remaining === 0) return;
      const staff = new Staff(shop, 'closer');
      await staff.get(`/orders/${order.id}`);
      const res = await staff.post(`/orders/${order.id}/refund`, { refund_amount: toWireAmount(remaining, 'USD') });
      if (res.status !== 303) followUp.push(`${p.orderNo}: refunding the remaining ${formatMoney(remaining, 'USD')} answered ${String(res.status)}`);
    });
    await shop.sandbox.notifier.flush();
    const finalProblems = (await Promise.all(plans.map((p) => refundProblems(shop, p.orderNo)))).flat();
    const notRefunded = (await Promise.all(plans.map((p) => shop.kit.store.getByOrderNo(p.orderNo)))).filter((o) => o?.state !== 'refunded').map((o) => `${o?.orderNo ?? '?'}: ${o?.state ?? 'missing'}`);
    report.check('the remaining amount stays refundable: every order ends refunded, its total equal to the gateway\'s', plans.length, [...followUp, ...finalProblems, ...notRefunded]);

    report.runs = plans.length * parallel;
    report.figure('orders', plans.length);
    report.figure('staff refunds posted', plans.length * parallel);
    report.figure('refunds made by the gateway', shop.sandbox.ledger.refunds().filter((r) => plans.some((p) => p.orderNo === r.orderNo)).length);
    report.figure('notification posts', raced.reduce((s, r) => s + r.notifications, 0));
    report.figure('notification posts while refunds were being answered', raced.reduce((s, r) => s + r.duringRace, 0));
    report.ordersLost = raceProblems.filter((m) => m.includes('missing')).length;
    shop.scan(scanner);
    report.check('no card number, CVV or expiry in any row or log line', scanner.scanned, scanner.findings);
    report.tried =
      `${String(plans.length)} paid orders (the first 118.00 with refunds of 47.20); on each, ${String(parallel)} staff partial refunds posted at once over HTTP ` +
      `while the gateway's refund notifications were replayed ${String(copies)} times each, shuffled, as they appeared and once more afterwards; then the rest refunded.`;
  } finally {
    await shop.close();
  }
  return report.finish();
}
