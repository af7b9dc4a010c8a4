/**
 * Every shopper page the kit renders, in every language it ships, with a catalogue that records
 * each key a language lacks: a page that asks for a missing key fails here. Also the catalogue's
 * shape (same keys everywhere), the language choice, overrides and the Intl formatting.
 */
import { describe, expect, it } from 'vitest';
import { orderSummary } from '../../../server/checkout/pay/form.js';
import { compileView } from '../../../server/checkout/render.js';
import { resultLocals } from '../../../server/checkout/result.js';
import { BUILT_IN_LOCALES, builtInTranslations, createCatalogue, formatCard, formatDate, formatMoney, keysOf, negotiateLocale, type Translator } from '../../../server/i18n/index.js';
import { ORDER_STATES, type Order } from '../../../server/orders/types.js';
import { compileSandboxPage, SANDBOX_SHOPPER_PAGES } from '../../../server/sandbox/pages.js';

function order(state: Order['state'], extra: Partial<Order> = {}): Order {
  return {
    id: '0190f0f0-0000-7000-8000-000000000001', orderNo: 'KL-1', amount: 2650, currency: 'EUR', state, version: 1,
    transactionId: 'T1', maskedCard: '424242******4242', method: 'card', capturedAmount: 0, refundedAmount: 0, attention: null,
    createdAt: new Date('2026-01-02T10:30:00Z'), updatedAt: new Date('2026-01-02T10:30:00Z'),
    data: { items: [{ name: 'Tea', sku: 'T', unitPrice: 1325, quantity: 2 }], shopper: { id: 's', email: 'a@b.c' }, submittedAt: 1 },
    ...extra,
  };
}

const missing: string[] = [];
const catalogue = createCatalogue({ onMissing: (locale, key) => missing.push(`${locale}: ${key}`) });

/** Every page of the kit's pay flow and result, rendered with `tr`. */
function renderAll(tr: Translator): string[] {
  const base = { assetsBase: '/checkout/assets', cspNonce: 'n', lang: tr.locale, t: tr.t };
  const data = order('created').data as never;
  const summary = orderSummary(order('created'), data, tr);
  const errors = Object.fromEntries(
    [['card', 'The card number is not valid: check it and try again'], ['expiration_year', 'The card has expired: check the expiry date'], ['first_name', 'Enter the first name'], ['method', 'Choose how to pay']]
      .map(([field, text]) => [field, tr.fieldError(field!, text!)]),
  );
  const form = {
    action: '/checkout/pay/x', csrfField: '_csrf', csrfToken: 't', methods: ['card', 'apm', 'hosted'], apms: [{ value: 'ideal', name: 'iDEAL' }],
    apmUnavailable: false, values: { first_name: 'Ada' }, errors, deviceFields: ['color_depth'], lang: tr.locale, t: tr.t, focusErrors: true,
  };
  const pages = [
    compileView('pay')({ ...base, title: tr.t('pay.title', { orderNo: 'KL-1' }), order: summary, form }),
    compileView('pay')({ ...base, order: summary, form: { ...form, methods: ['apm'], apms: [], apmUnavailable: true, errors: {} } }),
    compileView('redirect-post')({ ...base, title: tr.t('redirect.title'), heading: tr.text('Taking you to your bank…'), message: tr.text('Your bank needs to confirm this payment. If nothing happens, select Continue.'), action: 'https://issuer.example/3ds', fields: [{ name: 'a', value: 'b' }] }),
    compileView('error')({ ...base, heading: tr.text('This form has expired'), message: tr.text('For your security the payment was not sent. Go back to the payment page, reload it and try again.'), link: { href: '/x', text: tr.text('Back to the payment page') } }),
  ];
  for (const state of ORDER_STATES) {
    pages.push(compileView('result')({ ...base, ...resultLocals(order(state), state === 'declined' ? 'Card declined' : undefined, { translator: tr, shopUrl: 'https://shop.example/' }) }));
  }
  pages.push(compileView('result')({ ...base, ...resultLocals(order('created', { transactionId: null, data: { ...order('created').data, submittedAt: undefined } }), undefined, { translator: tr }) }));
  for (const name of SANDBOX_SHOPPER_PAGES) pages.push(compileSandboxPage(name)(sandboxLocals(name, tr)));
  pages.push(...sandboxMessages(tr));
  return pages;
}

function sandboxLocals(name: string, tr: Translator): Record<string, unknown> {
  // As the sandbox's routes give them: titles and sentences from the catalogue, amounts with Intl.
  const common = { nonce: 'n', lang: tr.locale, t: tr.t, merchant: 'Shop', orderNo: 'KL-1', amount: formatMoney(2650, 'EUR', tr.locale) };
  if (name === 'issuer-3ds') return { ...common, title: tr.t('sandbox.threeDsTitle'), card: '400000******3220', decisionUrl: '/d' };
  if (name === 'issuer-apm') return { ...common, title: tr.t('sandbox.apmTitle', { method: 'iDEAL' }), method: 'ideal', methodName: 'iDEAL', decisionUrl: '/d' };
  if (name === 'hosted-card') {
    return { ...common, title: tr.t('sandbox.hostedTitle'), payUrl: '/p', cancelUrl: '/c', error: tr.t('pay.fieldError.card'), detail: 'card is not a valid card number', firstName: 'Ada', lastName: 'L' };
  }
  if (name === 'message') {
    return { ...common, title: tr.t('sandbox.finishedTitle'), message: tr.t('sandbox.outcome.declined', { orderNo: 'KL-1' }), note: tr.t('sandbox.noReturnAddress'), detail: '0005:Do not honor' };
  }
  return { ...common, title: tr.t('sandbox.returningTitle'), message: tr.t('sandbox.outcome.approved', { orderNo: 'KL-1' }), action: '/a', fields: [['a', 'b']] };
}

/** Each sandbox hand-off and refusal sentence, on the message page (the routes pick one per case). */
function sandboxMessages(tr: Translator): string[] {
  const page = compileSandboxPage('message');
  const sentences = [
    ['sandbox.checkoutTitle', 'sandbox.checkoutMessage'], ['sandbox.returningTitle', 'sandbox.outcome.cancelled'], ['sandbox.finishedTitle', 'sandbox.outcome.pending'],
    ['sandbox.refusedTitle', 'sandbox.noSuchPage'], ['sandbox.refusedTitle', 'sandbox.alreadyComplete'], ['sandbox.refusedTitle', 'sandbox.refusedMessage'], ['sandbox.errorTitle', 'sandbox.errorMessage'],
  ];
  return sentences.map(([title, message]) => page({ nonce: 'n', lang: tr.locale, t: tr.t, title: tr.t(title!), message: tr.t(message!, { orderNo: 'KL-1' }) }));
}

describe('the shopper pages in every language', () => {
  it('ships the same keys in every language as in English', () => {
    const trees = builtInTranslations();
    const english = keysOf(trees.en!).sort();
    expect(english.length).toBeGreaterThan(100);
    for (const locale of BUILT_IN_LOCALES) expect(keysOf(trees[locale]!).sort(), locale).toEqual(english);
  });

  it.each(BUILT_IN_LOCALES)('renders every page in %s without a missing key or an English leftover', (locale) => {
    missing.length = 0;
    const tr = catalogue.translator(locale);
    const pages = renderAll(tr);
    expect(missing).toEqual([]);
    for (const html of pages) {
      expect(html).toContain(`lang="${locale}"`);
      // No key printed instead of its text.
      expect(html).not.toMatch(/>\s*(pay|result|redirect|messages|layout|sandbox)\.[a-zA-Z.]+\s*</);
    }
    if (locale !== 'en') {
      const all = pages.join('\n');
      for (const english of ['Pay for your order', 'Payment received', 'There is a problem', 'Back to the shop', 'Card number', 'This form has expired', 'Secure payment', 'Returning to the shop', 'Payment finished', 'Request refused', 'Something went wrong', '3-D Secure verification', 'Check the card number', 'Redirecting']) {
        expect(all, `${locale} shows "${english}"`).not.toContain(english);
      }
    }
  });

  it('fails on a key a language lacks (the check the page test relies on)', () => {
    const seen: string[] = [];
    const partial = createCatalogue({ translations: { it: { pay: { heading: 'Paga il tuo ordine' } } }, onMissing: (l, k) => seen.push(`${l}:${k}`) });
    const tr = partial.translator('it');
    expect(tr.t('pay.heading')).toBe('Paga il tuo ordine');
    expect(tr.t('pay.total')).toBe('Total'); // English fallback…
    expect(seen).toEqual(['it:pay.total']); // …reported
  });

  it('picks the order\'s locale, then Accept-Language, then the kit\'s locale', () => {
    const kit = createCatalogue({ defaultLocale: 'de', translations: { nl: { pay: { heading: 'Afrekenen maar' } } } });
    expect(kit.pick(['fr-CA'], 'nl-NL,nl;q=0.9')).toBe('fr');
    expect(kit.pick([undefined], 'pt-BR, es;q=0.8, nl;q=0.9')).toBe('nl');
    expect(kit.pick([], 'pt-BR, ja')).toBe('de');
    expect(kit.pick(['xx'], '')).toBe('de');
    expect(kit.translator('nl').t('pay.heading')).toBe('Afrekenen maar');
    expect(kit.translator('nl').t('pay.total')).toBe('Totaal');
    expect(negotiateLocale('*;q=1, de-AT;q=0.5, en;q=0', ['en', 'de'])).toBe('de');
  });

  it('formats amounts and dates with Intl for the language, and names the card brand', () => {
    const nbsp = (s: string): string => s.replace(/[\u00a0\u202f]/g, ' ');
    expect(formatMoney(2650, 'EUR', 'en')).toBe('€26.50');
    expect(nbsp(formatMoney(2650, 'EUR', 'nl'))).toBe('€ 26,50');
    expect(nbsp(formatMoney(2650, 'EUR', 'de'))).toBe('26,50 €');
    expect(nbsp(formatMoney(1000, 'JPY', 'fr'))).toBe('1 000 JPY');
    expect(formatDate(new Date('2026-01-02T10:30:00Z'), 'nl', 'UTC')).toContain('januari 2026');
    expect(formatDate(new Date('2026-01-02T10:30:00Z'), 'es', 'UTC')).toContain('enero de 2026');
    expect(formatCard('424242******4242')).toBe('Visa 424242******4242');
    expect(formatCard('555555******4444')).toBe('Mastercard 555555******4444');
    expect(formatCard('999999******0000')).toBe('999999******0000');
  });

  it('translates the form checks\' messages, falling back to the field\'s own message', () => {
    const nl = catalogue.translator('nl');
    expect(nl.fieldError('card', 'The card number is not valid: check it and try again')).toBe('Het kaartnummer is niet geldig: controleer het en probeer het opnieuw');
    expect(nl.fieldError('first_name', 'The first name must be 50 characters or fewer')).toBe('Controleer de voornaam');
    expect(catalogue.translator('en').fieldError('first_name', 'The first name must be 50 characters or fewer')).toBe('The first name must be 50 characters or fewer');
  });
});
