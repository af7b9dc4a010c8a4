/**
 * /return, /cancel and /result over real HTTP: forged and expired tokens, refreshes and double
 * posts, cross-site POSTs with any body and any shop parser, a cancel hint the gateway does not
 * confirm, a gateway that cannot be reached, and the error page.
 */
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUrlTokens } from '../../../server/checkout/tokens.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import type { OrderStore } from '../../../server/orders/store.js';
import {
  Browser, CARD, cardFields, payForm, paymentInput, startHarness, TOKEN_SECRET, uniqueOrderNo, type Harness,
} from './journeys-harness.js';

let h: Harness;
let failGets = false;
beforeAll(async () => {
  // A store that can be made to fail, to see the error page.
  const inner = createMemoryStore();
  const store: OrderStore = { ...inner, get: (id) => (failGets ? Promise.reject(new Error('boom: internal detail 4242424242424242')) : inner.get(id)) };
  h = await startHarness({ store });
});
afterEach(() => {
  failGets = false;
  h.setShopMiddleware(null);
  h.sandbox.faults.clear();
});
afterAll(async () => {
  await h.close();
});

const tokens = createUrlTokens({ secrets: TOKEN_SECRET });

async function created(prefix: string) {
  const orderNo = uniqueOrderNo(prefix);
  const { order } = await h.kit.createPayment(paymentInput(orderNo));
  return order;
}

/** An order waiting at the 3-D Secure page (the shopper has not decided). */
async function atChallenge(prefix: string) {
  const orderNo = uniqueOrderNo(prefix);
  const browser = new Browser();
  const { payUrl, order } = await h.kit.createPayment(paymentInput(orderNo));
  const page = await browser.get(payUrl);
  await browser.submit(page, payForm(page, 'card'), cardFields(CARD.challenge));
  const now = await h.kit.store.get(order.id);
  expect(now?.state).toBe('requires_action');
  return now!;
}

function send(method: 'GET' | 'POST', path: string, body?: string, contentType = 'application/x-www-form-urlencoded'): Promise<Response> {
  return fetch(`${h.shopUrl}/checkout${path}`, {
    method,
    redirect: 'manual',
    headers: body === undefined ? {} : { 'content-type': contentType, origin: 'https://issuer.example' },
    body,
  });
}

describe('tokens that cannot be trusted', () => {
  it('forged, expired, wrong-purpose and foreign tokens → 404 page, nothing recorded', async () => {
    const order = await atChallenge('R-FORGED');
    const events = (await h.kit.store.listEvents(order.id)).length;
    const expired = createUrlTokens({ secrets: TOKEN_SECRET, now: () => Date.now() - 8 * 24 * 3600 * 1000 }).sign(order.id, 'return');
    const foreign = createUrlTokens({ secrets: 'another-secret-of-at-least-32-characters' }).sign(order.id, 'return');
    const valid = tokens.sign(order.id, 'return');
    const tampered = `${valid.slice(0, 10)}${valid[10] === 'A' ? 'B' : 'A'}${valid.slice(11)}`;
    for (const token of [expired, foreign, tampered, tokens.sign(order.id, 'result'), tokens.sign(order.id, 'pay'), 'x', 'a.b']) {
      for (const [method, path] of [['GET', `/return/${token}`], ['POST', `/return/${token}`], ['POST', `/cancel/${token}`]] as const) {
        const res = await send(method, path, method === 'POST' ? 'order_status=1' : undefined);
        expect(res.status).toBe(404);
        const html = await res.text();
        expect(html).toMatch(/Link not valid/);
        expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      }
    }
    const after = await h.kit.store.get(order.id);
    expect(after?.version).toBe(order.version);
    expect(await h.kit.store.listEvents(order.id)).toHaveLength(events);
  });

  it('a forged result token → 404; a valid one shows the state', async () => {
    const order = await created('R-RESULT');
    expect((await send('GET', '/result/forged.token')).status).toBe(404);
    const res = await send('GET', `/result/${tokens.sign(order.id, 'result')}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toMatch(/Payment not completed/);
  });
});

describe('the return is a hint', () => {
  it('GET and cross-site POST with no cookie → 303 to the result page; refresh and double post add nothing', async () => {
    const order = await atChallenge('R-HINT');
    const token = tokens.sign(order.id, 'return');
    const first = await send('POST', `/return/${token}`, 'order_status=1&transaction_id=T1&result_info=0000%3ASuccess&card=4242424242424242&security_code=737');
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toMatch(new RegExp(`^${h.shopUrl}/checkout/result/[A-Za-z0-9_.-]+$`));
    // The redirect carries a token: no cache keeps it, and it has no body to render.
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(await first.text()).toBe('');
    await send('POST', `/return/${token}`, 'order_status=1');
    await send('GET', `/return/${token}`);

    const now = await h.kit.store.get(order.id);
    // The shopper has not finished the challenge: the gateway says requires_action, nothing moves.
    expect(now?.state).toBe('requires_action');
    const hints = (await h.kit.store.listEvents(order.id)).filter((e) => e.type === 'return_hint');
    expect(hints).toHaveLength(1);
    expect(hints[0]!.data.posted).toEqual({ order_status: '1', result_info: '0000:Success', transaction_id: 'T1' });
    // The hints' data, not their random ids and hashes, in which "737" can occur by chance.
    expect(JSON.stringify(hints.map((e) => e.data))).not.toMatch(/4242424242424242|security_code|737/);
  });

  it('works whatever parser the shop mounted, including JSON and oversized bodies', async () => {
    for (const parser of [express.urlencoded({ extended: true }), express.json(), express.text({ type: '*/*' })]) {
      h.setShopMiddleware(null);
      const order = await atChallenge('R-PARSER');
      h.setShopMiddleware(parser);
      const res = await send('POST', `/return/${tokens.sign(order.id, 'return')}`, 'order_status=-3&transaction_id=T2');
      expect(res.status).toBe(303);
      const hint = (await h.kit.store.listEvents(order.id)).find((e) => e.type === 'return_hint');
      expect(hint?.data.posted).toEqual({ order_status: '-3', transaction_id: 'T2' });
    }
    h.setShopMiddleware(null);
    const order = await atChallenge('R-BIG');
    const big = await send('POST', `/return/${tokens.sign(order.id, 'return')}`, `order_status=1&pad=${'x'.repeat(100 * 1024)}`);
    expect(big.status).toBe(303);
    const json = await send('POST', `/return/${tokens.sign(order.id, 'cancel')}`.replace('/return/', '/cancel/'), '{"order_status":"3"}', 'application/json');
    expect(json.status).toBe(303);
    const hint = (await h.kit.store.listEvents(order.id)).find((e) => e.type === 'cancel_hint');
    expect(hint?.data.posted).toEqual({ order_status: '3' });
  });

  it('a cancel hint the gateway does not confirm cancels nothing', async () => {
    const order = await atChallenge('R-CANCEL');
    const res = await send('POST', `/cancel/${tokens.sign(order.id, 'cancel')}`, 'order_status=3');
    expect(res.status).toBe(303);
    const now = await h.kit.store.get(order.id);
    expect(now?.state).toBe('requires_action');
    expect(h.hookCount('onCancelled', order.orderNo)).toBe(0);
    expect((await h.kit.store.listEvents(order.id)).filter((e) => e.type === 'cancel_hint')).toHaveLength(1);

    const never = await created('R-CANCEL-NEW');
    expect((await send('GET', `/cancel/${tokens.sign(never.id, 'cancel')}`)).status).toBe(303);
    expect((await h.kit.store.get(never.id))?.state).toBe('created');
  });

  it('the gateway unreachable: still 303, the order stays confirming, the result page refreshes', async () => {
    const order = await atChallenge('R-DOWN');
    h.sandbox.faults.add({ kind: 'http500', operation: 'retrievalTrans' });
    const res = await send('GET', `/return/${tokens.sign(order.id, 'return')}`);
    expect(res.status).toBe(303);
    expect((await h.kit.store.get(order.id))?.state).toBe('requires_action');
    const page = await send('GET', new URL(res.headers.get('location')!).pathname.replace('/checkout', ''));
    const html = await page.text();
    expect(html).toMatch(/Confirming your payment/);
    expect(html).toMatch(/<meta http-equiv="refresh" content="3">/);
    expect(html).not.toMatch(/<script(?![^>]*nonce=)/);
  });
});

describe('errors', () => {
  it('an internal failure renders a clean 500 page: no stack, no detail, no card data', async () => {
    const order = await created('R-500');
    failGets = true;
    const res = await send('GET', `/result/${tokens.sign(order.id, 'result')}`);
    expect(res.status).toBe(500);
    const html = await res.text();
    expect(html).toMatch(/Something went wrong/);
    expect(html).not.toMatch(/boom|internal detail|4242424242424242|at .*\.ts/);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(h.logs.join('\n')).not.toContain('4242424242424242');
  });
});
