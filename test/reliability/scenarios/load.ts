/**
 * Load: concurrent shoppers for a fixed time through the direct card, 3-D Secure and hosted
 * journeys against the in-process sandbox. No 5xx anywhere, no order lost, none left open once
 * the notifications and the sweeper are done.
 */
import { Browser } from '../../helpers/browser.js';
import { CardScanner } from '../support/card-scan.js';
import { CARD } from '../../integration/checkout/journeys-harness.js';
import { journey, type Journey } from '../support/journeys.js';
import { ledgerDoubleCharges, ledgerMismatches, resentRequests } from '../support/ledger.js';
import { readOrders } from '../support/orders.js';
import { PageChecker } from '../support/pages.js';
import { Report, type ScenarioResult } from '../support/result.js';
import { createRng } from '../support/rng.js';
import { startShop } from '../support/shop.js';
import type { Size } from '../support/sizes.js';
import { OPEN_STATES } from '../../../server/orders/state-machine.js';

export async function load(size: Size): Promise<ScenarioResult> {
  const report = new Report('load', 'Load', size.name);
  const scanner = new CardScanner();
  const pages = new PageChecker(scanner);
  // The kit's default gateway timeout: a busy machine must not turn slow answers into lost challenges.
  const shop = await startShop({ timeoutMs: 30_000 });
  const serverErrors: string[] = [];
  const failures: string[] = [];
  const orderNos: string[] = [];
  const counts: Record<Journey, number> = { direct: 0, '3ds': 0, hosted: 0 };
  const run = Date.now().toString(36);
  try {
    const deadline = Date.now() + size.load.durationMs;
    const shopper = async (id: number): Promise<void> => {
      const rng = createRng(size.seed + id);
      for (let n = 0; Date.now() < deadline; n++) {
        const kind = rng.pick<Journey>(['direct', '3ds', 'hosted']);
        const card = kind === '3ds' ? CARD.challenge : rng.chance(0.2) ? CARD.decline : CARD.approve;
        const orderNo = `LOAD-${run}-${String(id)}-${String(n)}`;
        orderNos.push(orderNo);
        try {
          const { payUrl } = await shop.createOrder(orderNo, 500 + rng.int(50_000));
          const browser = new Browser({ pages, timeoutMs: 30_000, onServerError: (url, status) => serverErrors.push(`${String(status)} ${new URL(url).pathname}`) });
          const end = await journey(kind, browser, payUrl, card);
          counts[kind]++;
          if (!end.url.includes('/checkout/result/') || end.status !== 200) failures.push(`${orderNo} (${kind}) ended on ${String(end.status)} ${new URL(end.url).pathname}`);
        } catch (err) {
          failures.push(`${orderNo} (${kind}): ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: size.load.shoppers }, (_, i) => shopper(i)));
    await shop.sandbox.notifier.flush();
    await shop.kit.sweeper.runOnce();

    const { found, missing } = await readOrders(shop.kit.store, orderNos);
    report.runs = orderNos.length;
    report.ordersLost = missing.length;
    for (const [kind, n] of Object.entries(counts)) report.figure(`${kind} journeys`, n);
    report.figure('shoppers', size.load.shoppers);
    report.figure('seconds', size.load.durationMs / 1000);
    report.figure('pages', pages.pages);
    report.figure('gateway requests by the kit', shop.calls.length);
    report.check('every journey reaches the result page', orderNos.length, failures);
    report.check('no 5xx from the shop or the gateway', pages.pages, serverErrors);
    report.check('no order lost', orderNos.length, missing.map((m) => `${m} missing`));
    report.check('no order left open (stuck) after the notifications and the sweeper', found.length, found.filter((s) => OPEN_STATES.includes(s.order.state)).map((s) => `${s.order.orderNo}: ${s.order.state} (gateway ${shop.sandbox.ledger.transaction(s.order.orderNo)?.paymentStatus ?? 'none'})`));
    report.check('every order in the state the ledger says', found.length, ledgerMismatches(found.map((s) => s.order), shop.sandbox.ledger));
    const doubles = [...ledgerDoubleCharges(shop.sandbox.ledger), ...resentRequests(shop.calls)];
    report.check('no payment charged twice, no money-moving request re-sent', orderNos.length, doubles);
    report.doubleCharges = doubles.length;
    report.check('every page has the strict CSP', pages.pages, pages.cspFailures);
    report.check('no inline handler or style on any page', pages.pages, pages.inlineFailures);
    shop.scan(scanner);
    report.check('no card number, CVV or expiry in any row, log line or page', scanner.scanned, scanner.findings);
    report.tried =
      `${String(size.load.shoppers)} concurrent shoppers for ${String(size.load.durationMs / 1000)} s, each paying order after order by direct card ` +
      '(20 % declined), 3-D Secure challenge or the hosted page, against the in-process sandbox.';
  } finally {
    await shop.close();
  }
  return report.finish();
}
