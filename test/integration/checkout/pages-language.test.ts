/**
 * The shopper pages over real HTTP in the shopper's language and in the shop's layout: the
 * order's locale beats Accept-Language, the hosted request carries the same `default_lang`
 * (and the sandbox's hosted page speaks it), an error re-renders through the shop's `payPage`
 * with what was typed (never the card number or security code), and the result page links
 * back to the shop and says what happens next while a payment is confirmed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayPageRender } from '../../../server/index.js';
import { containsStandalone } from '../../helpers/secrets.js';
import { Browser, cardFields, onlyForm, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness } from './journeys-harness.js';

let h: Harness;
const rendered: { status: number; values: PayPageRender['form']['values']; errors: Record<string, string>; lang: string }[] = [];

beforeAll(async () => {
  h = await startHarness({
    shopUrl: 'https://shop.example/',
    translations: { nl: { pay: { heading: 'Rekenen maar' } } },
    payPage: (_req, res, page) => {
      rendered.push({ status: page.status, values: page.form.values, errors: page.form.errors, lang: page.translator.locale });
      // The shop's own layout around the kit's form fields (enough for the test browser).
      const fields = page.form.methods.map((m) => `<form method="post" action="${page.form.action}"><input name="${page.form.csrfField}" value="${page.form.csrfToken}"><input name="method" value="${m}"></form>`).join('');
      res.status(page.status).type('html').send(`<!doctype html><html lang="en"><body><header class="shop-header">Kettle</header><main lang="${page.form.lang}"><h1>${page.title}</h1>${Object.values(page.form.errors).map((e) => `<p class="err">${e}</p>`).join('')}${fields}</main></body></html>`);
    },
  });
});

afterAll(async () => {
  await h.close();
});

describe('pages in the shopper\'s language', () => {
  it('follows Accept-Language, then the order\'s locale, and sends the same default_lang to the hosted page', async () => {
    const { payUrl } = await h.kit.createPayment(paymentInput(uniqueOrderNo('lang')));
    const dutch = new Browser({ headers: { 'accept-language': 'nl-BE,nl;q=0.9,en;q=0.5' } });
    const page = await dutch.get(payUrl);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<main lang="nl">');
    expect(page.html).toContain('Betaal bestelling');
    expect(rendered.at(-1)).toMatchObject({ status: 200, lang: 'nl' });

    // The order's own locale wins over the browser's.
    const { order, payUrl: germanUrl } = await h.kit.createPayment({ ...paymentInput(uniqueOrderNo('lang-de')), locale: 'de-AT' });
    expect(order.data.locale).toBe('de-AT');
    const german = await dutch.get(germanUrl);
    expect(german.html).toContain('Bestellung');
    expect(german.html).toContain('<main lang="de">');
    const redirect = await dutch.submit(german, payForm(german, 'hosted'));
    const form = onlyForm(redirect);
    expect(form.fields.default_lang).toBe('de');
    expect(redirect.html).toContain('lang="de"');
    expect(redirect.html).toContain('Sie werden zur sicheren Zahlungsseite weitergeleitet');
    // The sandbox's hosted page speaks the language it was asked for.
    const checkoutReply = await dutch.submit(redirect, form);
    const hosted = await dutch.submit(checkoutReply, onlyForm(checkoutReply));
    expect(hosted.html).toContain('<html lang="de">');
    expect(hosted.html).toContain('Kartenzahlung');
  });

  it('re-renders an error in the shop\'s layout with what was typed, never the card number or security code', async () => {
    const { order, payUrl } = await h.kit.createPayment(paymentInput(uniqueOrderNo('layout')));
    const browser = new Browser({ headers: { 'accept-language': 'fr' } });
    const page = await browser.get(payUrl);
    const badNumber = '4242424242424241';
    const res = await browser.submit(page, payForm(page, 'card'), { ...cardFields(badNumber), security_code: '7316', first_name: 'Ada', last_name: 'Lovelace' });
    expect(res.status).toBe(400);
    expect(res.html).toContain('<header class="shop-header">');
    expect(res.html).toContain('Le numéro de carte n\'est pas valide');
    expect(res.html).not.toContain(badNumber);
    expect(containsStandalone(res.html, '7316')).toBe(false);
    const last = rendered.at(-1);
    expect(last).toMatchObject({ status: 400, lang: 'fr', values: { first_name: 'Ada', last_name: 'Lovelace', method: 'card', expiration_month: cardFields(badNumber).expiration_month } });
    expect(JSON.stringify(last)).not.toContain(badNumber);
    expect((await h.kit.store.get(order.id))?.state).toBe('created');
  });

  it('the result page links back to the shop and, while confirming, says what happens next', async () => {
    const { order } = await h.kit.createPayment(paymentInput(uniqueOrderNo('result')));
    await h.kit.engine.apply({ orderId: order.id, source: 'pay', outcome: 'pending', actor: 'shopper', data: {} });
    const page = await new Browser({ headers: { 'accept-language': 'es' } }).get(h.kit.context.urls.result(order.id));
    expect(page.html).toContain('<html lang="es">');
    expect(page.html).toContain('href="https://shop.example/"');
    expect(page.html).toContain('Volver a la tienda');
    expect(page.html).toContain('Qué pasa ahora');
    expect(page.html).toMatch(/http-equiv="refresh"/);
    // A forged link still offers the way back.
    const forged = await new Browser().get(`${h.shopUrl}/checkout/result/forged`);
    expect(forged.status).toBe(404);
    expect(forged.html).toContain('Back to the shop');
  });
});
