/**
 * The sandbox's shopper pages in the shopper's language, served for real: the checkout hand-off,
 * hosted card page (and its card error), 3-D Secure challenge, APM issuer page, the way back to
 * the shop and the refusal pages. The language is the hosted request's `default_lang`, else
 * Accept-Language. No page may show a sandbox sentence in English when the language has its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_LOCALES, builtInTranslations, createCatalogue, formatMoney, keysOf, type TranslationTree } from '../../../server/i18n/index.js';
import {
  ACCOUNT_ID, autosubmitForm, FUTURE_YEAR, MERCHANT_ID, orderNo, postForm, postJsonAsForm, readRespon, sign, startSandbox, type Harness,
} from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startSandbox();
});
afterAll(async () => {
  await h.close();
});

const catalogue = createCatalogue();

/** The page as a shopper reads it: no hidden inputs (the shop's own data), scripts or styles. */
function visibleText(html: string): string {
  return html.replace(/[\u00a0\u202f]/g, ' ').replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, '').replace(/<input[^>]*>/g, '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
}

function leaf(tree: TranslationTree, key: string): string {
  const value = key.split('.').reduce<TranslationTree | string | undefined>((node, part) => (typeof node === 'object' ? node[part] : undefined), tree);
  return typeof value === 'string' ? value : '';
}

/** English sentences of the sandbox pages (and the field checks they reuse) that `locale` says differently. */
function englishLeftovers(locale: string): string[] {
  const trees = builtInTranslations();
  const en = trees.en!;
  const keys = [...keysOf(en.sandbox as TranslationTree, 'sandbox.'), ...keysOf((en.pay as TranslationTree).fieldError as TranslationTree, 'pay.fieldError.')];
  return keys
    .map((key) => leaf(en, key).split('{{')[0]!.trim())
    .filter((english, i) => english.length >= 8 && english !== leaf(trees[locale]!, keys[i]!).split('{{')[0]!.trim());
}

function expectLanguage(html: string, locale: string, heading: string): void {
  expect(html).toContain(`<html lang="${locale}">`);
  expect(visibleText(/<h1>([\s\S]*?)<\/h1>/.exec(html)?.[1] ?? '').trim()).toBe(heading);
  if (locale === 'en') return;
  const text = visibleText(html);
  for (const english of englishLeftovers(locale)) {
    // Whole words: French "Continuer" is not English "Continue".
    const pattern = new RegExp(`(^|\\W)${english.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|\\W)`);
    expect(text, `${locale} page shows "${english}"`).not.toMatch(pattern);
  }
}

function checkoutRequest(locale: string, overrides: Record<string, string> = {}): Record<string, string> {
  return sign('checkout', {
    merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, order_no: orderNo('LANG'), currency: 'EUR', amount: '30.00',
    items: 'Lamp#,#L-1#,#30.00#,#1', shopper_id: 's-9', shopper_email: 'lang@example.com', website: 'shop.example',
    first_name: 'Grace', last_name: 'Hopper', delivery_country: 'NL', shipping: '0.00', open3d: 'no3DS', default_lang: locale,
    return_url: 'https://shop.example/return', cancel_url: 'https://shop.example/cancel', ...overrides,
  }) as Record<string, string>;
}

function payAction(html: string): string {
  return [...html.matchAll(/<form[^>]*action="([^"]+)"/g)].map((m) => m[1] ?? '').find((a) => /\/hosted\/pay\/[^/]+$/.test(a)) ?? '';
}

describe.each(BUILT_IN_LOCALES)('sandbox shopper pages in %s', (locale) => {
  const tr = catalogue.translator(locale);
  // The browser asks for another language: the merchant's default_lang wins on the hosted path.
  const otherBrowser = { 'accept-language': locale === 'de' ? 'fr-FR,fr;q=0.9' : 'de-DE,de;q=0.9' };

  it('hosted path: hand-off, card page, card error, 3-D Secure, back to the shop, spent page', async () => {
    const request = checkoutRequest(locale);
    const handOff = await postForm(h.baseUrl, '/v1/checkout', request, otherBrowser);
    expect(handOff.status).toBe(200);
    expectLanguage(handOff.text, locale, tr.t('sandbox.checkoutTitle'));
    expect(handOff.text).toContain(tr.t('sandbox.checkoutMessage', { orderNo: request.order_no! }));

    const card = await postForm(h.baseUrl, '/hosted/pay', autosubmitForm(handOff.text).fields, otherBrowser);
    expect(card.status).toBe(200);
    expectLanguage(card.text, locale, tr.t('sandbox.hostedTitle'));
    expect(card.text).toContain(`<title>${tr.t('sandbox.hostedTitle')} · ${tr.t('sandbox.sandboxBadge')}</title>`);
    expect(visibleText(card.text)).toContain(visibleText(formatMoney(3000, 'EUR', locale)));
    const pay = new URL(payAction(card.text)).pathname;

    const bad = await postForm(h.baseUrl, pay, { card: '4242424242424241', expiration_month: '10', expiration_year: FUTURE_YEAR, security_code: '123' }, otherBrowser);
    expect(bad.status).toBe(400);
    expectLanguage(bad.text, locale, tr.t('sandbox.hostedTitle'));
    expect(bad.text).toContain(`role="alert">${tr.t('pay.fieldError.card')}</p>`);
    expect(bad.text).not.toContain('4242424242424241');

    const challenged = await postForm(h.baseUrl, pay, { card: '4000000000003220', expiration_month: '10', expiration_year: FUTURE_YEAR, security_code: '123' }, otherBrowser);
    expect(challenged.status).toBe(303);
    const challenge = challenged.headers.get('location') ?? '';
    const threeDs = await fetch(challenge, { headers: otherBrowser });
    expectLanguage(await threeDs.text(), locale, tr.t('sandbox.threeDsTitle'));

    const back = await postForm(h.baseUrl, `${new URL(challenge).pathname}/decision`, { decision: 'pass' }, otherBrowser);
    expectLanguage(back.text, locale, tr.t('sandbox.returningTitle'));
    expect(back.text).toContain(tr.t('sandbox.outcome.approved', { orderNo: request.order_no! }));
    expect(autosubmitForm(back.text).action).toBe('https://shop.example/return');

    const spent = await postForm(h.baseUrl, pay, { card: '4242424242424242' }, { 'accept-language': `${locale};q=0.9` });
    expect(spent.status).toBe(409);
    expectLanguage(spent.text, locale, tr.t('sandbox.refusedTitle'));
    expect(spent.text).toContain(tr.t('sandbox.alreadyComplete'));
  });

  it('hosted cancel goes back in the language, and an unknown page is refused in the browser\'s', async () => {
    const handOff = await postForm(h.baseUrl, '/v1/checkout', checkoutRequest(locale));
    const card = await postForm(h.baseUrl, '/hosted/pay', autosubmitForm(handOff.text).fields);
    const cancelled = await postForm(h.baseUrl, `${new URL(payAction(card.text)).pathname}/cancel`, {}, otherBrowser);
    expectLanguage(cancelled.text, locale, tr.t('sandbox.returningTitle'));
    expect(autosubmitForm(cancelled.text).action).toBe('https://shop.example/cancel');

    const unknown = await postForm(h.baseUrl, '/hosted/pay', { sandbox_session: 'nope' }, { 'accept-language': `${locale}-XX, en;q=0.1` });
    expect(unknown.status).toBe(404);
    expectLanguage(unknown.text, locale, tr.t('sandbox.refusedTitle'));
    expect(unknown.text).toContain(tr.t('sandbox.noSuchPage'));
  });

  it('APM issuer page and its hand-back follow Accept-Language; without a return address the outcome is shown', async () => {
    const request = sign('authorise', {
      payment_method: 'IDEAL', merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, order_no: orderNo('LAPM'), currency: 'EUR', amount: '42.00',
      website: 'shop.example', items: 'Book#,#B-1#,#42.00#,#1', shopper_id: 's-2', shopper_email: 'apm@example.com', shopper_ip: '203.0.113.9',
    });
    const respon = readRespon((await postJsonAsForm(h.baseUrl, '/v1/authorise', request)).text);
    const browser = { 'accept-language': `${locale}, en;q=0.5` };
    const issuer = await fetch(respon.issuer_url ?? '', { headers: browser });
    const html = await issuer.text();
    expectLanguage(html, locale, tr.t('sandbox.apmTitle', { method: 'iDEAL' }));
    expect(visibleText(html)).toContain(visibleText(formatMoney(4200, 'EUR', locale)));

    const done = await postForm(h.baseUrl, `${new URL(respon.issuer_url ?? '').pathname}/decision`, { decision: 'decline' }, browser);
    expect(done.status).toBe(200);
    expectLanguage(done.text, locale, tr.t('sandbox.finishedTitle'));
    expect(done.text).toContain(tr.t('sandbox.outcome.declined', { orderNo: String(request.order_no) }));
    expect(done.text).toContain(tr.t('sandbox.noReturnAddress'));
  });
});
