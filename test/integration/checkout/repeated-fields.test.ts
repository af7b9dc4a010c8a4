/**
 * A pay form carrying a card field twice is refused (400 naming the field) instead of charging
 * the first value: over real HTTP against the sandbox, whatever body parser the shop mounted
 * before the kit. The order is left unsubmitted and the gateway never hears of it.
 */
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, CARD, cardFields, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness } from './journeys-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

async function post(fields: [string, string][], parser: 'none' | 'extended' = 'none'): Promise<{ status: number; html: string; orderNo: string; nosniff: string | null }> {
  h.setShopMiddleware(parser === 'extended' ? express.urlencoded({ extended: true }) : null);
  const orderNo = uniqueOrderNo('REP');
  const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
  const browser = new Browser();
  const page = await browser.get(payUrl);
  const form = payForm(page, 'card');
  // The page's own fields (CSRF token, device data), then the hand-made, repeated ones.
  const body = new URLSearchParams(Object.entries(form.fields).filter(([k]) => !fields.some(([f]) => f === k)));
  for (const [k, v] of fields) body.append(k, v);
  const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const res = await fetch(form.action, { method: 'POST', body, headers: { origin: h.shopUrl, cookie, 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
  return { status: res.status, html: await res.text(), orderNo, nosniff: res.headers.get('x-content-type-options') };
}

function cardWith(extra: [string, string][]): [string, string][] {
  return [['method', 'card'], ...Object.entries(cardFields(CARD.approve)), ...extra];
}

describe('repeated pay fields', () => {
  it('a second card number is a 400 naming the card field; nothing is sent or changed', async () => {
    const r = await post(cardWith([['card', CARD.decline]]));
    expect(r.status).toBe(400);
    expect(r.nosniff).toBe('nosniff');
    expect(r.html).toContain('The card field was sent more than once');
    // Neither number is written back into the page.
    expect(r.html).not.toContain(CARD.approve);
    expect(r.html).not.toContain(CARD.decline);
    const order = await h.kit.store.getByOrderNo(r.orderNo);
    expect(order?.state).toBe('created');
    expect(order?.data.submittedAt).toBeUndefined();
    expect(h.sandbox.ledger.transaction(r.orderNo)).toBeUndefined();
  });

  it('names each repeated field (expiry, CVV, method), and refuses it when the shop parsed the body into arrays first', async () => {
    const year = String(new Date().getFullYear() + 4);
    const r = await post(cardWith([['expiration_year', year], ['security_code', '123']]));
    expect(r.status).toBe(400);
    expect(r.html).toContain('The expiration_year field was sent more than once');
    expect(r.html).toContain('The security_code field was sent more than once');
    expect(h.sandbox.ledger.transaction(r.orderNo)).toBeUndefined();

    const method = await post([['method', 'hosted'], ...cardWith([])]);
    expect(method.status).toBe(400);
    expect(method.html).toContain('The method field was sent more than once');

    const parsed = await post(cardWith([['card', CARD.approve]]), 'extended');
    expect(parsed.status).toBe(400);
    expect(parsed.html).toContain('The card field was sent more than once');
    expect((await h.kit.store.getByOrderNo(parsed.orderNo))?.state).toBe('created');
  });

  it('the same form with each field once is paid', async () => {
    const r = await post(cardWith([]));
    expect(r.status).toBe(303);
    expect((await h.kit.store.getByOrderNo(r.orderNo))?.state).toBe('paid');
  });
});
