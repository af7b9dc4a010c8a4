/**
 * Security checks: strict CSP and no inline handler on every page, nosniff on every answer, CSRF
 * on every state-changing form, the pay rate limit trips at its threshold, a repeated pay field
 * is refused, the admin refuses unauthenticated and cross-site requests, the admin's own sign-in
 * resists brute force and ends sessions for good, forged and expired return tokens change
 * nothing, return and cancel never redirect off-site, and no card data anywhere afterwards.
 */
import { Browser, parseForms, type Page } from '../../helpers/browser.js';
import { CardScanner } from '../support/card-scan.js';
import { CARD } from '../../integration/checkout/journeys-harness.js';
import { journey, type Journey } from '../support/journeys.js';
import { PageChecker } from '../support/pages.js';
import { Report, type ScenarioResult } from '../support/result.js';
import { STAFF_HEADER, startShop, type Shop } from '../support/shop.js';
import type { Size } from '../support/sizes.js';
import { send } from './fuzz-targets.js';
import { signInChecks, signInOptions } from './security-sign-in.js';

async function orderState(shop: Shop, orderId: string): Promise<string> {
  const order = await shop.kit.store.get(orderId);
  const events = order === null ? [] : await shop.kit.store.listEvents(order.id);
  return JSON.stringify({ state: order?.state, version: order?.version, events: events.length });
}

export async function security(size: Size): Promise<ScenarioResult> {
  const report = new Report('security', 'Security checks', size.name);
  const scanner = new CardScanner();
  const pages = new PageChecker(scanner);
  const shop = await startShop({ admin: true, captureMode: 'manual' });
  // The pay limit's shop also runs the admin with the kit's own sign-in.
  const limited = await startShop({ kit: { rateLimit: { limit: size.security.rateLimit } }, adminSignIn: signInOptions(size) });
  const staff = { [STAFF_HEADER]: 'security' };
  let runs = 0;
  // Every answer of the kit, the admin and the sandbox goes through the checker (nosniff at least).
  const call = async (url: string, init: Parameters<typeof send>[1] = {}): Promise<Awaited<ReturnType<typeof send>>> => {
    const a = await send(url, init);
    pages.observe(url, a.status, a.headers, a.text);
    return a;
  };
  try {
    const browser = new Browser({ pages });
    const seen: Page[] = [];
    const visit = async (url: string, headers: Record<string, string> = {}): Promise<Page> => {
      const res = await fetch(url, { headers: { accept: 'text/html', ...headers } });
      const page: Page = { url, status: res.status, html: await res.text(), headers: res.headers, trail: [url] };
      pages.observe(url, res.status, res.headers, page.html);
      seen.push(page);
      return page;
    };

    // Every journey once (their pages go through the checker), then the other pages.
    const orders: string[] = [];
    for (const kind of ['direct', '3ds', 'hosted'] as Journey[]) {
      const { orderId, payUrl } = await shop.createOrder(`SEC-${kind}-${Date.now().toString(36)}`, 1999);
      orders.push(orderId);
      seen.push(await journey(kind, browser, payUrl, kind === '3ds' ? CARD.challenge : CARD.approve));
    }
    // The journeys' notifications land after their answers: settled first, so the "nothing
    // changed" checks below compare the orders before and after the forged requests only.
    await shop.sandbox.notifier.flush();
    const fresh = await shop.createOrder(`SEC-FORM-${Date.now().toString(36)}`, 1999);
    const payPage = await browser.get(fresh.payUrl);
    seen.push(payPage);
    const paidId = orders[0]!;
    for (const path of ['/', `/orders/${paidId}`, '/batch', '/refunds', '/payouts', '/subscriptions/cancel', '/no-such-page']) await visit(`${shop.url}/admin${path}`, staff);
    await visit(`${shop.url}/admin/`);
    await visit(`${shop.url}/checkout/result/forged.token`);
    await visit(`${shop.gateway.baseUrl}/`);
    report.check('every HTML page carries the strict CSP (nonce, default-src none, no unsafe-inline)', pages.pages, pages.cspFailures);
    report.check('no inline event handler, style attribute or javascript: URL on any page', pages.pages, pages.inlineFailures);
    report.figure('kinds of page checked', pages.kinds.size);

    // CSRF: every POST form of the kit and the admin, sent without its token and with a wrong one.
    const csrfProblems: string[] = [];
    const adminPages = seen.filter((p) => p.url.startsWith(`${shop.url}/admin`) && p.status === 200);
    const forms = [
      ...parseForms(payPage).filter((f) => f.method === 'post').map((f) => ({ f, headers: { origin: shop.url }, target: fresh.orderId })),
      ...adminPages.flatMap((p) => parseForms(p).filter((f) => f.method === 'post').map((f) => ({ f, headers: { ...staff, origin: shop.url }, target: paidId }))),
    ];
    for (const { f, headers, target } of forms) {
      for (const token of [undefined, 'forged.token']) {
        const before = await orderState(shop, target);
        const fields: Record<string, string> = { ...f.fields, ...(f.fields.method === 'card' ? { card: CARD.approve, security_code: '737', expiration_month: '12', expiration_year: '2035', first_name: 'A', last_name: 'B' } : {}) };
        if (token === undefined) Reflect.deleteProperty(fields, '_csrf');
        else fields._csrf = token;
        const a = await call(f.action, { body: new URLSearchParams(fields).toString(), contentType: 'application/x-www-form-urlencoded', headers });
        runs++;
        if (a.status !== 403) csrfProblems.push(`${new URL(f.action).pathname} with ${token ?? 'no'} token: ${String(a.status)}`);
        if ((await orderState(shop, target)) !== before) csrfProblems.push(`${new URL(f.action).pathname}: the order changed`);
      }
    }
    report.check('CSRF is enforced on every state-changing form (kit and admin): 403, nothing changed', forms.length * 2, csrfProblems);
    report.figure('forms checked for CSRF', forms.length);

    // The rate limit of the pay route trips exactly at its threshold.
    const target = await limited.createOrder(`SEC-RATE-${Date.now().toString(36)}`, 1000);
    const statuses: number[] = [];
    for (let i = 0; i < size.security.rateLimit + 3; i++) {
      const a = await call(target.payUrl, { body: 'method=hosted', contentType: 'application/x-www-form-urlencoded' });
      statuses.push(a.status);
      runs++;
    }
    const allowed = statuses.filter((s) => s !== 429).length;
    report.check(`the pay rate limit lets exactly ${String(size.security.rateLimit)} attempts through, then answers 429`, statuses.length,
      allowed === size.security.rateLimit && statuses.slice(size.security.rateLimit).every((s) => s === 429) ? [] : [`statuses ${statuses.join(',')}`]);

    // The admin: no staff → 401; another origin, or none → 403; nothing changes.
    const adminProblems: string[] = [];
    const routes = ['/', `/orders/${paidId}`, '/batch', '/refunds', '/payouts', '/subscriptions/cancel'];
    for (const path of routes) {
      const a = await call(`${shop.url}/admin${path}`, { method: 'GET' });
      runs++;
      if (a.status !== 401) adminProblems.push(`GET ${path} without staff: ${String(a.status)}`);
    }
    const before = await orderState(shop, paidId);
    for (const path of [`/orders/${paidId}/capture`, `/orders/${paidId}/cancel`, `/orders/${paidId}/refund`, `/orders/${paidId}/sync`, '/batch', '/payouts', '/subscriptions/cancel']) {
      for (const headers of [{}, { ...staff, origin: 'https://evil.example' }, { ...staff }, { ...staff, origin: 'null' }, { ...staff, referer: 'https://evil.example/x' }] as Record<string, string>[]) {
        const a = await call(`${shop.url}/admin${path}`, { body: 'refund_amount=1.00', contentType: 'application/x-www-form-urlencoded', headers });
        runs++;
        const expected = headers[STAFF_HEADER] === undefined ? 401 : 403;
        if (a.status !== expected) adminProblems.push(`POST ${path} ${JSON.stringify(headers)}: ${String(a.status)}`);
      }
    }
    if ((await orderState(shop, paidId)) !== before) adminProblems.push('the order changed');
    report.check('the admin refuses unauthenticated (401) and cross-site or origin-less (403) requests, changing nothing', routes.length + 35, adminProblems);

    // Forged and expired return/cancel tokens; hostile Host headers never move the redirect.
    const tokenProblems: string[] = [];
    const tokens = shop.kit.context.tokens;
    const watched = orders[1]!;
    const snapshot = await orderState(shop, watched);
    const valid = tokens.sign(watched, 'return');
    const bad = [tokens.sign(watched, 'return', -60_000), tokens.sign(watched, 'cancel', -1000), tokens.sign(watched, 'result'), `${valid.slice(0, -2)}xx`, valid.replace(/^./, 'A'), tokens.sign(watched, 'pay')];
    for (const purpose of ['return', 'cancel']) {
      for (const token of bad) {
        for (const method of ['GET', 'POST']) {
          const a = await call(`${shop.url}/checkout/${purpose}/${token}`, { method, ...(method === 'POST' ? { body: 'order_status=1&transaction_id=X', contentType: 'application/x-www-form-urlencoded' } : {}) });
          runs++;
          if (a.status !== 404 || a.location !== null) tokenProblems.push(`${method} ${purpose} forged/expired: ${String(a.status)} ${a.location ?? ''}`);
        }
      }
    }
    if ((await orderState(shop, watched)) !== snapshot) tokenProblems.push('a forged or expired token changed the order');
    for (const purpose of ['return', 'cancel'] as const) {
      for (const host of ['evil.example', 'shop.test@evil.example', `127.0.0.1:1`]) {
        const a = await call(`${shop.url}/checkout/${purpose}/${tokens.sign(watched, purpose)}`, { method: 'POST', body: 'return_url=https://evil.example', contentType: 'application/x-www-form-urlencoded', headers: { host, 'x-forwarded-host': 'evil.example' } });
        runs++;
        if (a.location === null || !a.location.startsWith(`${shop.url}/checkout/result/`)) tokenProblems.push(`${purpose} with Host ${host}: ${String(a.status)} → ${a.location ?? 'no redirect'}`);
      }
    }
    report.check('forged and expired return/cancel tokens answer 404 and change nothing; valid ones only ever redirect to the shop\'s own result page', bad.length * 4 + 6, tokenProblems);

    // A pay field sent twice is a 400 naming it; the order and the gateway never see either value.
    const repeatProblems: string[] = [];
    const repeatable = { card: CARD.decline, expiration_month: '11', expiration_year: '2036', security_code: '123', first_name: 'Eve', last_name: 'Mallory', method: 'hosted' };
    for (const [field, second] of Object.entries(repeatable)) {
      const { orderId, payUrl } = await shop.createOrder(`SEC-REP-${field}-${Date.now().toString(36)}`, 1999);
      const page = await browser.get(payUrl);
      const form = parseForms(page).find((f) => f.fields.method === 'card');
      if (form === undefined) {
        repeatProblems.push('no card form');
        continue;
      }
      const body = new URLSearchParams({ ...form.fields, card: CARD.approve, security_code: '737', expiration_month: '12', expiration_year: '2035', first_name: 'A', last_name: 'B' });
      body.append(field, second);
      const before = await orderState(shop, orderId);
      const orderNo = (await shop.kit.store.get(orderId))?.orderNo ?? '';
      const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const a = await call(form.action, { body: body.toString(), contentType: 'application/x-www-form-urlencoded', headers: { origin: shop.url, cookie } });
      runs++;
      if (a.status !== 400 || !a.text.includes(`The ${field} field was sent more than once`)) repeatProblems.push(`${field} twice: ${String(a.status)}`);
      if ((await orderState(shop, orderId)) !== before) repeatProblems.push(`${field} twice: the order changed`);
      if (shop.calls.some((c) => c.keys.includes(orderNo))) repeatProblems.push(`${field} twice: the gateway was called`);
    }
    report.check('a pay field sent twice (card number, expiry, CVV, names, method) is a 400 naming it; nothing is charged or changed', Object.keys(repeatable).length, repeatProblems);

    // The admin's own sign-in: revoked sessions and brute force.
    runs += await signInChecks(report, size, limited, (where, reply) => {
      pages.observe(`${limited.url}${where.split(' ')[1] ?? ''}`, reply.status, reply.headers, reply.text);
    });

    report.check('every answer of the kit, the admin and the sandbox (pages, redirects, refusals, API) carries X-Content-Type-Options: nosniff', pages.answers, pages.noSniffFailures);
    report.runs = runs + pages.pages;
    shop.scan(scanner);
    limited.scan(scanner);
    report.check('no card number, CVV or expiry in any SQLite row, log line or page', scanner.scanned, scanner.findings);
    report.tried =
      'Every journey and every admin screen through the page checker; every POST form of the kit and the admin without and with a forged CSRF token; ' +
      `the pay rate limit at ${String(size.security.rateLimit)}; every admin route without staff, cross-site, origin-less; forged, expired and wrong-purpose ` +
      'return and cancel tokens; hostile Host headers on return and cancel; every pay field sent twice; the admin sign-in: sign-out, ' +
      `password change and expiry against saved cookies, ${String(size.security.signIn.perAccount)} wrong passwords then the right one while locked and after the window, ` +
      'one address spraying account names; nosniff on every answer; a card-data scan of every row, log line and page.';
  } finally {
    await shop.close();
    await limited.close();
  }
  return report.finish();
}
