/**
 * Notifications ahead of the gateway: with the sweeper OFF, each order's payment stops at the
 * 3-D Secure page while the sandbox notifies the outcome it will have (paid, or declined for a
 * quarter of them) before its own query shows it. The kit must not take those as seen; once the
 * shopper decides, the gateway's real notification (the same fact, same dedupe key) and the
 * retries must settle every order in the gateway's state. Then a third of the paid orders get a
 * notification with another amount: flagged as a mismatch, the order staying paid.
 */
import { notificationDedupeKey } from '../../../server/gateway/operations/notifications.js';
import { CardScanner } from '../support/card-scan.js';
import { hookMismatches, ledgerMismatches } from '../support/ledger.js';
import { cardPayment, control, readOrders } from '../support/orders.js';
import { Report, type ScenarioResult } from '../support/result.js';
import { createRng, pool } from '../support/rng.js';
import { startShop } from '../support/shop.js';
import type { Size } from '../support/sizes.js';

const CHALLENGE = '4000000000003220';
const PAID = { order_status: '1', payment_status: '3000', result_info: '0000:Success' };
const DECLINED = { order_status: '0', payment_status: '5000', result_info: '0201:3-D Secure authentication failed' };

interface Plan {
  orderNo: string;
  amount: number;
  pass: boolean;
  /** Gets a notification with another amount once paid. */
  otherAmount: boolean;
  transactionId: string;
  issuerUrl: string;
}

async function post(url: string, fields: Record<string, string>): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  await res.arrayBuffer();
  return res.status;
}

export async function notificationsAhead(size: Size): Promise<ScenarioResult> {
  const report = new Report('notifications-ahead', 'Notifications ahead of the gateway', size.name);
  const scanner = new CardScanner();
  const rng = createRng(size.seed + 7);
  const run = Date.now().toString(36);
  const shop = await startShop({ notifyTimeScale: size.ahead.notifyTimeScale });
  try {
    const notifyUrl = shop.kit.context.urls.notify();
    const plans: Plan[] = Array.from({ length: size.ahead.orders }, (_, i) => ({
      orderNo: `AHEAD-${run}-${String(i)}`, amount: 1000 + rng.int(9000), pass: i % 4 !== 3, otherAmount: i % 4 !== 3 && i % 3 === 0, transactionId: '', issuerUrl: '',
    }));
    const byNo = new Map(plans.map((p) => [p.orderNo, p]));
    await pool(plans, 8, async (p) => {
      await shop.createOrder(p.orderNo, p.amount);
      const answer = await shop.kit.client.payments.authorise({ ...cardPayment(p.orderNo, p.amount, CHALLENGE, notifyUrl), open3d: 'do3DS' }, { timeoutMs: 30_000 });
      if (answer.transactionId === null || answer.issuerUrl === null) throw new Error(`no challenge for ${p.orderNo}`);
      p.transactionId = answer.transactionId;
      p.issuerUrl = answer.issuerUrl;
    });

    // 1. The outcome, notified before the gateway's query shows it.
    await pool(plans, 8, async (p) => control(shop.gateway.baseUrl, `transactions/${p.transactionId}/notify`, p.pass ? PAID : DECLINED));
    const crafted = () => shop.sandbox.ledger.notifications().filter((n) => byNo.has(n.orderNo) && n.origin === 'crafted');
    for (let i = 0; i < 3000 && crafted().some((n) => n.attempts.length === 0); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const early = crafted();
    const before = await readOrders(shop.kit.store, [...byNo.keys()]);
    const storedKeys = new Set<string | null>();
    for (const s of before.found) for (const e of await shop.kit.store.listEvents(s.order.id)) storedKeys.add(e.dedupeKey);
    report.check(
      'a notification ahead of the gateway query is not acknowledged (503, or no answer in time under load) and its dedupe key is not stored',
      early.length,
      early
        .filter((n) => n.attempts.some((a) => a.httpStatus !== null && a.httpStatus < 300) || storedKeys.has(notificationDedupeKey(n.fields)))
        .map((n) => `${n.orderNo}: answers ${n.attempts.map((a) => String(a.httpStatus ?? a.error)).join(',')}`),
    );
    report.check(
      'no order went further than the gateway\'s query (created, or requires_action as the query says)',
      plans.length,
      before.found.filter((s) => s.order.state !== 'created' && s.order.state !== 'requires_action').map((s) => `${s.order.orderNo}: ${s.order.state}`),
    );

    // 2. The shoppers decide; the sandbox notifies for real. The sweeper stays off.
    await pool(plans, 8, async (p) => {
      await post(p.issuerUrl, {});
      const status = await post(`${p.issuerUrl}/decision`, { decision: p.pass ? 'pass' : 'fail' });
      if (status !== 200) throw new Error(`decision for ${p.orderNo} answered ${String(status)}`);
    });
    await shop.sandbox.notifier.flush();

    // 3. Another amount on paid orders.
    const flagged = plans.filter((p) => p.otherAmount);
    await pool(flagged, 8, async (p) => control(shop.gateway.baseUrl, `transactions/${p.transactionId}/notify`, { ...PAID, amount: '0.01' }));
    await shop.sandbox.notifier.flush();

    report.runs = plans.length;
    report.figure('orders', plans.length);
    report.figure('notifications ahead', early.length);
    report.figure('first answers 503', early.filter((n) => n.attempts[0]?.httpStatus === 503).length);
    report.figure('other-amount notifications', flagged.length);
    const { found, missing } = await readOrders(shop.kit.store, [...byNo.keys()]);
    const mismatches = ledgerMismatches(found.map((s) => s.order), shop.sandbox.ledger);
    report.check('with the sweeper off, every order ends in the state the gateway has', plans.length, [...missing.map((m) => `${m}: missing`), ...mismatches]);
    report.check('every shop hook fires exactly once per stored transition', found.length, hookMismatches(found, shop.hookCalls));
    const flaggedNos = new Set(flagged.map((p) => p.orderNo));
    report.check(
      'a notification with another amount on a paid order is recorded as a mismatch and flagged in money, the order staying paid',
      flagged.length,
      found
        .filter((s) => flaggedNos.has(s.order.orderNo))
        .filter((s) => s.order.state !== 'paid' || !s.eventTypes.includes('mismatch') || !(s.order.attention ?? '').includes('(0.01 USD for order'))
        .map((s) => `${s.order.orderNo}: ${s.order.state}, attention ${s.order.attention ?? 'none'}`),
    );
    const unflagged = found.filter((s) => !flaggedNos.has(s.order.orderNo) && s.order.attention !== null);
    report.check('no other order is flagged', found.length - flaggedNos.size, unflagged.map((s) => `${s.order.orderNo}: ${s.order.attention ?? ''}`));
    report.ordersLost = missing.length + mismatches.length;
    report.doubleCharges = 0;
    shop.scan(scanner);
    report.check('no card number, CVV or expiry in any row or log line', scanner.scanned, scanner.findings);
    report.tried =
      `${String(plans.length)} card payments held at 3-D Secure, each notified (paid, or declined for a quarter) before the gateway's query ` +
      `knew; then every shopper decided, with the sweeper off; then ${String(flagged.length)} paid orders notified with 0.01 USD.`;
  } finally {
    await shop.close();
  }
  return report.finish();
}
