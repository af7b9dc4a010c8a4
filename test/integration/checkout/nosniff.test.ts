/**
 * `X-Content-Type-Options: nosniff` on every answer of every route family the kit serves, over
 * real HTTP: the checkout (pay pages, the paid result, 3-D Secure and hosted journeys, return and
 * cancel redirects, forged tokens, notify, assets, 404, 429), the sandbox gateway (API, issuer,
 * hosted and inspector pages) and the staff admin (pages, refusals, 404, stylesheet).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { journey } from '../../reliability/support/journeys.js';
import { StaffSession, startHarness as startAdminHarness, type AdminHarness } from '../admin/harness.js';
import { Browser, CARD, paymentInput, startHarness, uniqueOrderNo, type Harness } from './journeys-harness.js';

let h: Harness;
let admin: AdminHarness;
beforeAll(async () => {
  [h, admin] = await Promise.all([startHarness({ rateLimit: { limit: 12 } }), startAdminHarness()]);
});
afterAll(async () => {
  await h.close();
  await admin.close();
});

/** Every answer seen without nosniff, as "METHOD url → status". */
const missing: string[] = [];
let checked = 0;
async function hit(method: string, url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, { method, redirect: 'manual', ...init });
  checked++;
  if (res.headers.get('x-content-type-options') !== 'nosniff') missing.push(`${method} ${url} → ${String(res.status)}`);
  await res.arrayBuffer();
  return res;
}

const observer = {
  observe(url: string, status: number, headers: Headers): void {
    checked++;
    if (headers.get('x-content-type-options') !== 'nosniff') missing.push(`page ${url} → ${String(status)}`);
  },
};

describe('nosniff on every route family', () => {
  it('checkout and sandbox: every journey page, redirect, refusal and API answer', async () => {
    const browser = new Browser({ pages: observer });
    const trails: string[] = [];
    for (const kind of ['direct', '3ds', 'hosted'] as const) {
      const { payUrl } = await h.kit.createPayment(paymentInput(uniqueOrderNo(`NS-${kind}`)));
      const end = await journey(kind, browser, payUrl, kind === '3ds' ? CARD.challenge : CARD.approve);
      expect(end.html).toMatch(/Payment received|Payment authorised/);
      trails.push(...end.trail);
    }
    // Every hop of the journeys again, redirects included, answered without following.
    for (const url of new Set(trails)) await hit('GET', url);

    const { order, payUrl } = await h.kit.createPayment(paymentInput(uniqueOrderNo('NS-misc')));
    const tokens = h.kit.context.tokens;
    await hit('GET', payUrl);
    await hit('POST', payUrl, { body: 'method=card', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: h.shopUrl } });
    await hit('GET', `${h.shopUrl}/checkout/result/${tokens.sign(order.id, 'result')}`);
    await hit('GET', `${h.shopUrl}/checkout/result/forged.token`);
    await hit('POST', `${h.shopUrl}/checkout/return/${tokens.sign(order.id, 'return')}`, { body: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    await hit('GET', `${h.shopUrl}/checkout/cancel/${tokens.sign(order.id, 'cancel')}`);
    await hit('POST', `${h.shopUrl}/checkout/notify`, { body: 'garbage', headers: { 'content-type': 'text/plain' } });
    await hit('GET', `${h.shopUrl}/checkout/no-such-route`);
    const pay = await browser.get(payUrl);
    for (const m of pay.html.matchAll(/(?:src|href)="(\/checkout\/assets\/[^"]+)"/g)) await hit('GET', `${h.shopUrl}${m[1] ?? ''}`);
    // Over the pay limit: the 429 page.
    let limited = 0;
    for (let i = 0; i < 14 && limited === 0; i++) {
      const res = await hit('POST', payUrl, { body: 'method=hosted', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: h.shopUrl } });
      if (res.status === 429) limited++;
    }
    expect(limited).toBe(1);

    const gw = h.gateway.baseUrl;
    await hit('GET', `${gw}/`);
    await hit('POST', `${gw}/v1/retrievalTrans`, { body: '{}', headers: { 'content-type': 'application/json' } });
    await hit('POST', `${gw}/v1/nope`, { body: '{}', headers: { 'content-type': 'application/json' } });
    await hit('GET', `${gw}/issuer/3ds/unknown`);
    await hit('GET', `${gw}/_sandbox/state`);

    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(30);
  });

  it('admin: pages, refusals, 404 and the stylesheet', async () => {
    const before = missing.length;
    const order = await admin.createAuthorised();
    const base = admin.admin.baseUrl;
    const staff = { 'x-staff': 'kim' };
    for (const path of ['/', `/orders/${order.id}`, '/batch', '/refunds', '/payouts', '/subscriptions/cancel', '/no-such-page', '/assets/admin.css']) {
      await hit('GET', `${base}/admin${path}`, { headers: staff });
    }
    await hit('GET', `${base}/admin/`);
    await hit('POST', `${base}/admin/orders/${order.id}/capture`, { headers: { ...staff, origin: 'https://evil.example' } });
    const session = new StaffSession(admin.admin);
    await session.get(`/orders/${order.id}`);
    await hit('POST', `${base}/admin/orders/${order.id}/capture`, { body: '_csrf=forged', headers: { ...staff, origin: base, 'content-type': 'application/x-www-form-urlencoded' } });
    expect(missing.slice(before)).toEqual([]);
  });
});
