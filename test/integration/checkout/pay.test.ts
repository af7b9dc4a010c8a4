/**
 * The pay page and pay route over real HTTP: the kit mounted in a shop, the sandbox gateway,
 * a cookie-keeping browser. Checks the page (CSP, no inline code), CSRF, each method, the
 * "never charge twice" guard, and that card data never reaches the store, the events or logs.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import pug from 'pug';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payFormLocals } from '../../../server/checkout/pay/form.js';
import { CHECKOUT_VIEWS_DIR } from '../../../server/checkout/render.js';
import type { Order } from '../../../server/orders/types.js';
import {
  Browser, CARD, cardFields, onlyForm, parseForms, payForm, paymentInput, startHarness, uniqueOrderNo,
  type Harness, type Page,
} from './journeys-harness.js';
import { containsStandalone } from '../../helpers/secrets.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h.close();
});

const CVV = '7316';

async function newOrder(prefix: string): Promise<{ order: Order; payUrl: string }> {
  return h.kit.createPayment(paymentInput(uniqueOrderNo(prefix)));
}

async function stored(orderId: string): Promise<Order> {
  const order = await h.kit.store.get(orderId);
  if (!order) throw new Error('order vanished');
  return order;
}

function csp(page: Page): Map<string, string> {
  const header = page.headers.get('content-security-policy') ?? '';
  return new Map(
    header.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values.join(' ')] as const;
    }),
  );
}

function ledgerCount(orderNo: string): number {
  return h.sandbox.ledger.transactions().filter((t) => t.orderNo === orderNo).length;
}

function card(number: string): Record<string, string> {
  return { ...cardFields(number), security_code: CVV };
}

describe('GET /pay/:token', () => {
  it('renders the order, the three methods, device inputs and CSRF under a strict nonce CSP', async () => {
    const { order, payUrl } = await newOrder('page');
    const page = await new Browser().get(payUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    // Never cached, so never hashed for an ETag either.
    expect(page.headers.get('etag')).toBeNull();
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');

    const policy = csp(page);
    const nonce = /'nonce-([^']+)'/.exec(policy.get('script-src') ?? '')?.[1];
    expect(nonce).toBeDefined();
    expect(policy.get('default-src')).toBe("'none'");
    expect(policy.get('form-action')).toBe(`'self' ${h.shopUrl} ${h.gateway.baseUrl}`);

    // No inline code anywhere: every script is an external file carrying this response's nonce.
    expect(page.html).not.toMatch(/\son[a-z]+=/i);
    expect(page.html).not.toMatch(/\sstyle=/i);
    expect(page.html).not.toMatch(/<style/i);
    const scripts = [...page.html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes = '', body = ''] of scripts) {
      expect(attributes).toContain(`nonce="${nonce!}"`);
      expect(attributes).toMatch(/src="\/checkout\/assets\/device\.js"/);
      expect(body.trim()).toBe('');
    }
    expect(page.html).toContain('href="/checkout/assets/checkout.css"');

    expect(page.html).toContain(order.orderNo);
    expect(page.html).toContain('$25.00');
    expect(page.html).toContain('$12.50');
    const forms = parseForms(page);
    expect(forms.map((f) => f.fields.method)).toEqual(['hosted', 'card', 'apm']);
    for (const form of forms) {
      expect(form.action).toBe(new URL(form.action).toString());
      expect(form.fields._csrf).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
      for (const name of ['os', 'browser', 'time_zone', 'resolution', 'device_fingerprint', 'session_id', 'challenge_window_size']) {
        expect(form.fields).toHaveProperty(name, '');
      }
    }
    // The APM list comes from the gateway's optimise, home-country (NL) method first.
    expect(payForm(page, 'apm').html).toMatch(/<option value="IDEAL"[^>]*>iDEAL<\/option>/);
    expect(page.headers.getSetCookie().some((c) => /^checkout_csrf=.*HttpOnly.*SameSite=Strict/i.test(c))).toBe(true);
  });

  it('answers 404 for a forged token and 410 for an expired one', async () => {
    const { order } = await newOrder('token');
    const browser = new Browser();
    const forged = await browser.get(`${h.shopUrl}/checkout/pay/${'A'.repeat(20)}.${'B'.repeat(43)}`);
    expect(forged.status).toBe(404);
    expect(forged.html).toContain('Payment link not valid');
    const expired = await browser.get(`${h.shopUrl}/checkout/pay/${h.kit.context.tokens.sign(order.id, 'pay', -60_000)}`);
    expect(expired.status).toBe(410);
    expect(expired.html).toContain('expired');
  });

  it('serves the assets with long cache headers and the right types', async () => {
    const browser = new Browser();
    const css = await browser.get(`${h.shopUrl}/checkout/assets/checkout.css`);
    const js = await browser.get(`${h.shopUrl}/checkout/assets/device.js`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(js.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(js.headers.get('cache-control')).toBe('public, max-age=604800');
    expect(js.html).not.toMatch(/\beval\(|new Function/);
  });
});

describe('POST /pay/:token', () => {
  it('refuses a POST without a valid CSRF field (403) and changes nothing', async () => {
    const { order, payUrl } = await newOrder('csrf');
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const form = payForm(page, 'card');
    const before = await h.kit.store.listEvents(order.id);

    const missing = await browser.submit(page, form, { ...card(CARD.approve), _csrf: '' });
    const otherOrder = await newOrder('csrf-other');
    const foreignField = payForm(await browser.get(otherOrder.payUrl), 'card').fields._csrf!;
    const foreign = await browser.submit(page, form, { ...card(CARD.approve), _csrf: foreignField });
    const noCookie = await new Browser().submit(page, form, card(CARD.approve));

    for (const res of [missing, foreign, noCookie]) {
      expect(res.status).toBe(403);
      expect(res.html).toContain('This form has expired');
      expect(res.html).not.toContain(CARD.approve);
    }
    const after = await stored(order.id);
    expect(after.state).toBe('created');
    expect(after.version).toBe(order.version);
    expect(after.data.submittedAt).toBeUndefined();
    expect(await h.kit.store.listEvents(order.id)).toEqual(before);
    expect(ledgerCount(order.orderNo)).toBe(0);
  });

  it('card approved: 303 to the result page and the order is paid with the masked card', async () => {
    const { order, payUrl } = await newOrder('card');
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const result = await browser.submit(page, payForm(page, 'card'), card(CARD.approve));
    expect(result.trail[1]).toMatch(new RegExp(`^${h.shopUrl}/checkout/result/`));
    expect(result.status).toBe(200);
    const paid = await stored(order.id);
    expect(paid).toMatchObject({ state: 'paid', method: 'card', maskedCard: '424242******4242' });
    expect(paid.transactionId).toBe(h.sandbox.ledger.transaction(order.orderNo)?.transactionId);
    expect(typeof paid.data.submittedAt).toBe('string');
    expect(paid.data.resultCode).toBe('0000');
    expect(h.hookCount('onPaid', order.orderNo)).toBe(1);
    const events = await h.kit.store.listEvents(order.id);
    // The sandbox's notification may race the pay answer; either way one submission (created →
    // pending, through the engine), one move to paid.
    expect(events.filter((e) => e.dedupeKey === 'pay:submitted')).toMatchObject([
      { type: 'transition', source: 'pay', fromState: 'created', toState: 'pending', data: { method: 'card' } },
    ]);
    expect(events.filter((e) => e.type === 'transition').map((e) => e.toState)).toEqual(['pending', 'paid']);
    // What reached the gateway came from the stored order, the form's names and the request.
    const tx = h.sandbox.ledger.transaction(order.orderNo)!;
    expect(tx).toMatchObject({ amount: 2500, currency: 'USD', paymentMethod: 'CARD' });
    expect(tx.details).toMatchObject({
      website: 'shop.test', shopper_id: 'shopper-1', shopper_email: 'shopper@example.test', shopper_ip: '127.0.0.1',
      first_name: 'Ada', last_name: 'Lovelace', billing_country: 'NL', open3d: 'do3DS', items: 'Tea pot#,#TP-1#,#12.50#,#2',
    });
  });

  it('card declined: the order is declined and the shopper sees the result page', async () => {
    const { order, payUrl } = await newOrder('decline');
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const result = await browser.submit(page, payForm(page, 'card'), card(CARD.decline));
    expect(result.trail[1]).toContain('/checkout/result/');
    expect((await stored(order.id)).state).toBe('declined');
    expect(h.hookCount('onFailed', order.orderNo)).toBe(1);
  });

  it('3-D Secure: renders the auto-submitting POST to issuer_url with return and notify URLs', async () => {
    const { order, payUrl } = await newOrder('3ds');
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const issuerPage = await browser.submit(page, payForm(page, 'card'), card(CARD.challenge));
    expect(issuerPage.status).toBe(200);
    const form = onlyForm(issuerPage);
    expect(form.method).toBe('post');
    expect(form.action).toMatch(new RegExp(`^${h.gateway.baseUrl}/issuer/3ds/`));
    expect(Object.keys(form.fields).sort()).toEqual(['notify_url', 'return_url']);
    expect(form.fields.notify_url).toBe(`${h.shopUrl}/checkout/notify`);
    expect(form.fields.return_url).toMatch(new RegExp(`^${h.shopUrl}/checkout/return/[\\w-]+\\.[\\w-]+$`));
    expect(h.kit.context.tokens.verify(form.fields.return_url!.split('/return/')[1]!, 'return')).toEqual({ orderId: order.id });
    expect(issuerPage.html).toContain('<noscript><button type="submit">Continue</button></noscript>');
    expect(issuerPage.html).toMatch(/<script src="\/checkout\/assets\/autosubmit\.js" nonce="[^"]+"><\/script>/);
    expect(csp(issuerPage).get('form-action')).toBe(`'self' ${new URL(form.action).origin}`);
    expect((await stored(order.id)).state).toBe('requires_action');
    expect(h.hookCount('onRequiresAction', order.orderNo)).toBe(1);
  });

  it('APM: 303 straight to the issuer page', async () => {
    const { order, payUrl } = await newOrder('apm');
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const issuer = await browser.submit(page, payForm(page, 'apm'), { payment_method: 'IDEAL' });
    expect(issuer.trail[1]).toMatch(new RegExp(`^${h.gateway.baseUrl}/issuer/apm/`));
    expect(issuer.status).toBe(200);
    const after = await stored(order.id);
    expect(after).toMatchObject({ state: 'requires_action', method: 'apm' });
    expect(h.sandbox.ledger.transaction(order.orderNo)?.paymentMethod).toBe('IDEAL');
  });

  it('hosted: renders the signed form posting to {baseUrl}/v1/checkout; the order is pending', async () => {
    const { order, payUrl } = await newOrder('hosted');
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const redirect = await browser.submit(page, payForm(page, 'hosted'));
    expect(redirect.status).toBe(200);
    const form = onlyForm(redirect);
    expect(form.action).toBe(`${h.gateway.baseUrl}/v1/checkout`);
    expect(form.fields).toMatchObject({ order_no: order.orderNo, amount: '25.00', currency: 'USD', website: 'shop.test' });
    expect(form.fields.encryption_data).toMatch(/^[0-9a-f]{64}$/);
    expect(form.fields.return_url).toMatch(new RegExp(`^${h.shopUrl}/checkout/return/`));
    expect(form.fields.cancel_url).toMatch(new RegExp(`^${h.shopUrl}/checkout/cancel/`));
    expect(form.fields.notify_url).toBe(`${h.shopUrl}/checkout/notify`);
    expect(form.fields).not.toHaveProperty('card');
    expect(csp(redirect).get('form-action')).toBe(`'self' ${h.gateway.baseUrl}`);
    expect(await stored(order.id)).toMatchObject({ state: 'pending', method: 'hosted' });
    // The gateway accepts the form as the browser posts it.
    const hostedPage = await browser.submit(redirect, form);
    expect(hostedPage.status).toBe(200);
  });

  it('never charges twice: a repeated and a concurrent POST reach the gateway once', async () => {
    const { order, payUrl } = await newOrder('twice');
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const form = payForm(page, 'card');
    const [a, b] = await Promise.all([browser.submit(page, form, card(CARD.approve)), browser.submit(page, form, card(CARD.approve))]);
    const again = await browser.submit(page, form, card(CARD.approve));
    for (const res of [a, b, again]) expect(res.trail[1]).toContain('/checkout/result/');
    expect(ledgerCount(order.orderNo)).toBe(1);
    expect((await stored(order.id)).state).toBe('paid');
    // The one submission moved the order created → pending through the engine, seen by one onTransition.
    const events = await h.kit.store.listEvents(order.id);
    expect(events.filter((e) => e.dedupeKey === 'pay:submitted')).toMatchObject([{ type: 'transition', fromState: 'created', toState: 'pending' }]);
    expect(events.filter((e) => e.type === 'transition' && e.toState === 'pending')).toHaveLength(1);
    const toPending = h.hookCalls.filter((c) => c.orderNo === order.orderNo && c.hook === 'onTransition' && c.to === 'pending');
    expect(toPending).toEqual([{ hook: 'onTransition', orderNo: order.orderNo, from: 'created', to: 'pending' }]);
    expect(h.hookCount('onPaid', order.orderNo)).toBe(1);
    // The pay page of a submitted order now leads to its result page.
    expect((await browser.get(payUrl)).trail[1]).toContain('/checkout/result/');
  });

  it('a validation error re-renders the form without the card data and changes nothing', async () => {
    const { order, payUrl } = await newOrder('invalid');
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const badNumber = '4242424242424241';
    const res = await browser.submit(page, payForm(page, 'card'), { ...card(badNumber), expiration_month: '13', first_name: 'Ada' });
    expect(res.status).toBe(400);
    expect(res.html).toContain('The card number is not valid');
    expect(res.html).toContain('Enter the expiry month as a number from 1 to 12');
    expect(res.html).not.toContain(badNumber);
    expect(containsStandalone(res.html, CVV)).toBe(false);
    // What the shopper typed comes back, but never the card number or security code.
    expect(payForm(res, 'card').fields).toMatchObject({ card: '', security_code: '', expiration_month: '13', expiration_year: card(badNumber).expiration_year, first_name: 'Ada' });
    const after = await stored(order.id);
    expect(after.version).toBe(order.version);
    expect(after.data.submittedAt).toBeUndefined();
    expect(ledgerCount(order.orderNo)).toBe(0);
  });

  it('a method the order does not allow is refused with 400', async () => {
    const { order, payUrl } = await h.kit.createPayment({ ...paymentInput(uniqueOrderNo('methods')), methods: ['hosted'] });
    const browser = new Browser();
    const page = await browser.get(payUrl);
    expect(parseForms(page).map((f) => f.fields.method)).toEqual(['hosted']);
    const forged = { ...payForm(page, 'hosted'), fields: { ...payForm(page, 'hosted').fields, method: 'card' } };
    const res = await browser.submit(page, forged, card(CARD.approve));
    expect(res.status).toBe(400);
    expect(res.html).toContain('This payment method is not available for this order');
    expect(ledgerCount(order.orderNo)).toBe(0);
  });

  it('keeps card number, CVV and expiry out of stored orders, events and logs', async () => {
    const ids: string[] = [];
    for (const number of [CARD.approve, CARD.challenge, CARD.decline, '4242424242424241']) {
      const { order, payUrl } = await newOrder('secret');
      ids.push(order.id);
      const browser = new Browser();
      const page = await browser.get(payUrl);
      await browser.submit(page, payForm(page, 'card'), { ...card(number), expiration_year: '2039' });
    }
    const orders = await Promise.all(ids.map((id) => stored(id)));
    expect(orders.map((o) => o.state)).toEqual(['paid', 'requires_action', 'declined', 'created']);
    const dump = JSON.stringify(await Promise.all(orders.map(async (o) => ({ o, events: await h.kit.store.listEvents(o.id) }))));
    for (const secret of [CARD.approve, CARD.challenge, CARD.decline, '4242424242424241']) expect(dump).not.toContain(secret);
    // Ids are random hex: one of their four-digit groups can read as the CVV by chance.
    expect(containsStandalone(dump.replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/g, 'ID'), CVV)).toBe(false);
    expect(dump).not.toMatch(/expiration_(month|year)|security_code/);
    const logs = h.logs.join('\n');
    expect(logs).toContain(orders[0]!.orderNo);
    for (const secret of [CARD.approve, CARD.challenge, CARD.decline, '4242424242424241']) expect(logs).not.toContain(secret);
    expect(containsStandalone(logs, CVV)).toBe(false);
  });
});

describe('+checkoutPayForm embedded in a shop page', () => {
  let server: Server;
  let shopPageUrl: string;

  beforeAll(async () => {
    // A shop's own pug page that includes the kit's mixins.
    const view = pug.compile(
      ['include mixins.pug', 'doctype html', 'html', '  body', '    h1 My shop', '    +checkoutOrderSummary(order)', '    +checkoutPayForm(order, form)', '    +checkoutScripts(assetsBase, nonce)'].join('\n'),
      { filename: join(CHECKOUT_VIEWS_DIR, 'shop-page.pug') },
    );
    const app = express();
    app.get('/basket/:orderId', async (req, res) => {
      const order = await h.kit.store.get(req.params.orderId);
      if (!order) {
        res.sendStatus(404);
        return;
      }
      const locals = await payFormLocals(h.kit.context, req, res, order);
      res.type('html').send(view({ ...locals, assetsBase: '/checkout/assets', nonce: 'shop-nonce' }));
    });
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    shopPageUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/basket`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    });
  });

  it('renders the kit form in the shop page and the kit accepts its POST', async () => {
    const { order } = await newOrder('embedded');
    const res = await fetch(`${shopPageUrl}/${order.id}`);
    const html = await res.text();
    expect(html).toContain('<h1>My shop</h1>');
    // The CSRF cookie is scoped to the kit's mount path, wherever the shop page lives.
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('checkout_csrf='))!;
    expect(cookie).toMatch(/Path=\/checkout(;|$)/);
    const page: Page = { url: res.url, status: res.status, html, headers: res.headers, trail: [res.url] };
    const form = payForm(page, 'card');
    expect(form.action).toMatch(new RegExp(`^${h.shopUrl}/checkout/pay/`));
    const post = await fetch(form.action, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie.split(';')[0]! },
      body: new URLSearchParams({ ...form.fields, ...card(CARD.approve) }).toString(),
    });
    expect(post.status).toBe(303);
    expect(post.headers.get('location')).toMatch(new RegExp(`^${h.shopUrl}/checkout/result/`));
    expect(post.headers.get('cache-control')).toBe('no-store');
    expect(await post.text()).toBe('');
    expect((await stored(order.id)).state).toBe('paid');
  });
});
