/**
 * Load: concurrent shoppers for a fixed time through the direct card, 3-D Secure and hosted
 * journeys against the in-process sandbox. No 5xx anywhere, no order lost, and once the
 * notifications and the sweeper are done every order agrees with the gateway: none it took money
 * for is left unpaid, and only an order whose shopper stopped before paying may stay open.
 */
import { Browser, causeCode } from '../../helpers/browser.js';
import { CardScanner } from '../support/card-scan.js';
import { CARD } from '../../integration/checkout/journeys-harness.js';
import { journey, type Journey } from '../support/journeys.js';
import { ledgerDoubleCharges, ledgerMismatches, resentRequests, unpaidMoney } from '../support/ledger.js';
import { readOrders } from '../support/orders.js';
import { PageChecker } from '../support/pages.js';
import { Report, type ScenarioResult } from '../support/result.js';
import { createRng } from '../support/rng.js';
import { startShop, type Shop } from '../support/shop.js';
import type { Size } from '../support/sizes.js';
import { OPEN_STATES } from '../../../server/orders/state-machine.js';

/** What an earlier run found, how the scenario avoids it, and what its end-state checks mean. */
const NOTES = [
  '**Why journeys used to end in "fetch failed".** On 2 shared cores (load average 10–15) the one process that runs the shoppers, ' +
    'the shop and the sandbox keeps its event loop busy all the time (utilisation 1.0, turns of 0.1–2 s), and Node 20 (libuv 1.46) ' +
    'accepts one connection per listening socket per turn of the event loop (strace: one `accept4` per turn). The shop could take ' +
    'on only a few new connections a second while its clients opened more: Node’s 5 s `keepAliveTimeout` closed idle connections ' +
    'that fetch then reopened (and sometimes reused as the server closed them: ECONNRESET), and the sandbox’s notifier, unbounded, ' +
    'opened a connection for every delivery that found none free, gave up after 5 s and sent it again on another. The listen queue ' +
    'filled (`ss`: 512 of 511) and overflowed (the kernel’s ListenOverflows grew): a shopper’s connect timed out after 10 s ' +
    '(UND_ERR_CONNECT_TIMEOUT), or its handshake completed on its side only and its request was never read until its 30 s timeout ' +
    '(TimeoutError); each timeout destroyed a connection and made the next request open another. The shop itself answered every ' +
    'request it read, the slowest in 2–12 s as the machine’s load varied, none with a 5xx: nothing was dropped by the kit, so it needs no load shedding for this.',
  '**What the harness does about it.** The shop’s server keeps idle connections for 65 s (above fetch’s idle timeout, which follows ' +
    'the server’s `Keep-Alive: timeout` less 2 s; `headersTimeout` above it) with a listen backlog of 2048; one connection per ' +
    'shopper is opened before the clock starts, as browsers that have been on the shop a while hold theirs; the sandbox delivers ' +
    'notifications over at most 64 connections per receiver and waits 30 s for an answer. The browser resends a request whose ' +
    'connection never opened (nothing was sent), and one whose connection broke after sending only for a page read or the kit’s ' +
    'return, which records its hint once and asks the gateway; never a payment. The figures count resends and stopped journeys ' +
    'by cause (`err.cause.code`), and how fast the shop answered (not asserted: the machine is shared).',
  '**End state.** After the notifications and the sweeper every order is compared with the sandbox’s record. A payment the gateway ' +
    'authorised or captured must have its order in a state that accounts for it (authorized, paid, refunded…): that is the loss that ' +
    'matters. An order may stay open only if its shopper stopped before the result page and the gateway holds no money for it ' +
    '(`created`: never reached the pay step; `requires_action`: a challenge never finished): that is an abandoned checkout, not a lost ' +
    'order. Every order the shop acknowledged creating must exist.',
];

/** Steps a shopper's browser may send twice: reading a page, and the kit's returns (idempotent by design). */
function idempotent(method: string, url: URL): boolean {
  return method === 'GET' || /^\/checkout\/(return|cancel)\//.test(url.pathname);
}

/**
 * Opens one keep-alive connection per shopper before the clock starts, as browsers that have
 * been on the shop a while hold theirs: every request of the run then finds one. Opened during
 * the run instead, each waits for a turn of a saturated event loop to be accepted (one per
 * turn), and a shopper could wait out its timeout in the listen queue. The shop holds the
 * requests until all have arrived, so the pool cannot reuse a connection and open fewer.
 */
async function openConnections(shop: Shop, count: number): Promise<void> {
  const waiting: (() => void)[] = [];
  shop.app.get('/shop/connect', (_req, res) => {
    waiting.push(() => res.status(204).end());
    if (waiting.length >= count) for (const answer of waiting.splice(0)) answer();
  });
  await Promise.all(Array.from({ length: count }, async () => {
    const res = await fetch(`${shop.url}/shop/connect`, { signal: AbortSignal.timeout(120_000) });
    await res.arrayBuffer();
  }));
}

export async function load(size: Size): Promise<ScenarioResult> {
  const report = new Report('load', 'Load', size.name);
  const scanner = new CardScanner();
  const pages = new PageChecker(scanner);
  // The kit's default gateway timeout: a busy machine must not turn slow answers into lost challenges.
  // The sandbox waits as long for the shop's answer to a notification: one given up on is sent
  // again on a new connection, and on a saturated event loop that churn is what overflows the
  // shop's listen queue (docs/reliability.md#load).
  const shop = await startShop({ timeoutMs: 30_000, notifyTimeoutMs: 30_000 });
  const serverErrors: string[] = [];
  const failures: string[] = [];
  const orderNos: string[] = [];
  /** Orders the shop acknowledged creating: each must exist at the end. */
  const acknowledged: string[] = [];
  /** Orders whose shopper reached the result page: each must be final at the end. */
  const finished = new Set<string>();
  const noAnswer = new Map<string, number>();
  const resent = new Map<string, number>();
  const tally = (counts: Map<string, number>, code: string): void => {
    counts.set(code, (counts.get(code) ?? 0) + 1);
  };
  const counts: Record<Journey, number> = { direct: 0, '3ds': 0, hosted: 0 };
  const run = Date.now().toString(36);
  try {
    await openConnections(shop, size.load.shoppers);
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
          acknowledged.push(orderNo);
          const browser = new Browser({
            pages,
            timeoutMs: 30_000,
            onServerError: (url, status) => serverErrors.push(`${String(status)} ${new URL(url).pathname}`),
            retry: { idempotent, onRetry: (code) => { tally(resent, code); } },
          });
          const end = await journey(kind, browser, payUrl, card);
          counts[kind]++;
          if (!end.url.includes('/checkout/result/') || end.status !== 200) failures.push(`${orderNo} (${kind}) ended on ${String(end.status)} ${new URL(end.url).pathname}`);
          else finished.add(orderNo);
        } catch (err) {
          failures.push(`${orderNo} (${kind}): ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`);
          tally(noAnswer, causeCode(err));
        }
      }
    };
    await Promise.all(Array.from({ length: size.load.shoppers }, (_, i) => shopper(i)));
    await shop.sandbox.notifier.flush();
    await shop.kit.sweeper.runOnce();

    const { found } = await readOrders(shop.kit.store, orderNos);
    const stored = new Set(found.map((s) => s.order.orderNo));
    const ledger = shop.sandbox.ledger;
    const open = found.filter((s) => OPEN_STATES.includes(s.order.state));
    const gatewayState = (orderNo: string): string => ledger.transaction(orderNo)?.paymentStatus ?? 'none';
    report.runs = orderNos.length;
    const lost = acknowledged.filter((o) => !stored.has(o));
    report.ordersLost = lost.length;
    for (const [kind, n] of Object.entries(counts)) report.figure(`${kind} journeys`, n);
    report.figure('shoppers', size.load.shoppers);
    report.figure('seconds', size.load.durationMs / 1000);
    report.figure('pages', pages.pages);
    report.figure('gateway requests by the kit', shop.calls.length);
    // How the shop itself fared: every request it read was answered, and how fast (not asserted).
    const times = shop.served.map((r) => r.ms).sort((a, b) => a - b);
    report.figure('requests the shop answered', times.length);
    report.figure('shop answer time p99 ms', Math.round(times[Math.floor(times.length * 0.99)] ?? 0));
    report.figure('shop answer time max ms', Math.round(times.at(-1) ?? 0));
    report.figure('orders left open by a shopper who stopped', open.length);
    for (const [code, n] of resent) report.figure(`requests resent after ${code}`, n);
    for (const [code, n] of noAnswer) report.figure(`journeys stopped by ${code}`, n);
    report.check('every journey reaches the result page', orderNos.length, failures);
    report.check('no 5xx from the shop or the gateway', pages.pages, serverErrors);
    report.check('no order lost: every order the shop acknowledged is stored', acknowledged.length, lost.map((m) => `${m} missing`));
    report.check('no payment the gateway took is left unpaid in the shop (after the notifications and the sweeper)', orderNos.length, unpaidMoney(found.map((s) => s.order), ledger, new Set(orderNos)));
    report.check(
      'no order left open once its shopper reached the result page; one left open is one the gateway holds no money for',
      found.length,
      open.filter((s) => finished.has(s.order.orderNo)).map((s) => `${s.order.orderNo}: ${s.order.state} after its result page (gateway ${gatewayState(s.order.orderNo)})`),
    );
    report.check('every order in the state the ledger says', found.length, ledgerMismatches(found.map((s) => s.order), ledger));
    const doubles = [...ledgerDoubleCharges(ledger), ...resentRequests(shop.calls)];
    report.check('no payment charged twice, no money-moving request re-sent', orderNos.length, doubles);
    report.doubleCharges = doubles.length;
    report.check('every page has the strict CSP', pages.pages, pages.cspFailures);
    report.check('no inline handler or style on any page', pages.pages, pages.inlineFailures);
    shop.scan(scanner);
    report.check('no card number, CVV or expiry in any row, log line or page', scanner.scanned, scanner.findings);
    report.tried =
      `${String(size.load.shoppers)} concurrent shoppers for ${String(size.load.durationMs / 1000)} s, each paying order after order by direct card ` +
      '(20 % declined), 3-D Secure challenge or the hosted page, against the in-process sandbox. A request whose connection never opened ' +
      'is resent, one whose connection broke only when sending it twice is harmless (a page read, a return).';
    report.notes = NOTES;
  } finally {
    await shop.close();
  }
  return report.finish();
}
