/**
 * Amounts, dates and card brands for a shopper's language, with `Intl`. Amounts are exact: the
 * minor units are turned into the currency's decimal string first, never through a float sum.
 */
import { currencyExponent, toWireAmount } from '../gateway/money.js';

/** 1050 USD in `en` → "$10.50", in `nl` → "US$ 10,50"; unknown currencies → "10.50 XYZ". */
export function formatMoney(minor: number, currency: string, locale = 'en'): string {
  const exponent = currencyExponent(currency);
  const decimal = toWireAmount(minor, currency) as `${number}`;
  try {
    return new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      minimumFractionDigits: exponent,
      maximumFractionDigits: exponent,
    }).format(decimal);
  } catch {
    return `${decimal} ${currency}`;
  }
}

/** A date and time in the locale's long form, e.g. "25 november 2026 om 10:30". */
export function formatDate(date: Date, locale = 'en', timeZone?: string): string {
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short', timeZone }).format(date);
  } catch {
    return date.toISOString();
  }
}

const BRANDS: [RegExp, string][] = [
  [/^4/, 'Visa'],
  [/^(5[1-5]|2[2-7])/, 'Mastercard'],
  [/^3[47]/, 'American Express'],
  [/^(6011|65)/, 'Discover'],
  [/^35/, 'JCB'],
  [/^3[068]/, 'Diners Club'],
];

/** The card's brand from its masked number's first digits ("424242******4242" → "Visa"), or undefined. */
export function cardBrand(maskedCard: string): string | undefined {
  return BRANDS.find(([pattern]) => pattern.test(maskedCard))?.[1];
}

/**
 * "Visa 424242******4242": the brand (the same word in every language) before the masked number,
 * which stays whole so the shopper and staff read the same digits.
 */
export function formatCard(maskedCard: string): string {
  const brand = cardBrand(maskedCard);
  return brand === undefined ? maskedCard : `${brand} ${maskedCard}`;
}
