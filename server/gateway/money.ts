/**
 * Money: integer minor units plus an ISO 4217 currency inside the kit, decimal strings on the
 * wire. All conversions are string arithmetic, so no floating-point rounding ever touches an
 * amount.
 */
import { ValidationError } from '../errors.js';

/** ISO 4217 minor-unit exponents that are not 2. Every other three-letter code uses 2. */
const EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0,
  UGX: 0, UYI: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
};

const CURRENCY_RE = /^[A-Z]{3}$/;
/** Largest amount the gateway's 15-character amount fields can hold, as minor units. */
export const MAX_MINOR_UNITS = Number.MAX_SAFE_INTEGER;

export function isCurrencyCode(value: string): boolean {
  return CURRENCY_RE.test(value);
}

export function currencyExponent(currency: string): number {
  if (!isCurrencyCode(currency)) {
    throw new ValidationError([{ field: 'currency', message: 'must be a three-letter upper-case ISO 4217 code' }]);
  }
  return EXPONENTS[currency] ?? 2;
}

export function assertMinorUnits(amount: number, field = 'amount'): void {
  if (!Number.isSafeInteger(amount) || amount < 0) {
    throw new ValidationError([{ field, message: 'must be a non-negative whole number of minor units' }]);
  }
}

/**
 * Minor units to the wire's decimal string: 1050 USD → "10.50", 1000 JPY → "1000",
 * 1234 KWD → "1.234". Zero-exponent currencies carry no decimal point.
 */
export function toWireAmount(minor: number, currency: string, field = 'amount'): string {
  assertMinorUnits(minor, field);
  const exponent = currencyExponent(currency);
  if (exponent === 0) return String(minor);
  const digits = String(minor).padStart(exponent + 1, '0');
  return `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/**
 * Minor units as text for people (logs, attention reasons, admin pages): 1050 USD → "10.50 USD",
 * 1000 JPY → "1000 JPY", 1234 KWD → "1.234 KWD". Never throws: a bad currency or amount is named as such.
 */
export function moneyText(minor: number, currency: string): string {
  try {
    return `${toWireAmount(minor, currency)} ${currency}`;
  } catch {
    return `${String(minor)} (minor units) ${currency}`;
  }
}

const WIRE_AMOUNT_RE = /^(\d{1,15})(?:\.(\d{1,15}))?$/;

/**
 * The wire's decimal string to minor units. Accepts fewer decimals than the currency has
 * ("10.5" USD → 1050) and extra trailing zeros ("1000.00" JPY → 1000); refuses signs, exponents,
 * spaces and any non-zero digit below the currency's minor unit.
 */
export function parseWireAmount(value: string, currency: string, field = 'amount'): number {
  const match = WIRE_AMOUNT_RE.exec(value.trim());
  if (!match) {
    throw new ValidationError([{ field, message: `must be a decimal amount like "10.00", got "${value.slice(0, 20)}"` }]);
  }
  const exponent = currencyExponent(currency);
  const whole = match[1] ?? '0';
  const fraction = match[2] ?? '';
  const kept = fraction.slice(0, exponent);
  if (/[1-9]/.test(fraction.slice(exponent))) {
    throw new ValidationError([{ field, message: `has more decimals than ${currency} allows (${exponent})` }]);
  }
  const minor = Number(whole + kept.padEnd(exponent, '0'));
  if (!Number.isSafeInteger(minor)) {
    throw new ValidationError([{ field, message: 'is too large' }]);
  }
  return minor;
}

export interface AmountComponents {
  amount: number;
  item_total?: number | undefined;
  shipping?: number | undefined;
  handling?: number | undefined;
  tax_total?: number | undefined;
  insurance?: number | undefined;
  shipping_discount?: number | undefined;
  discount?: number | undefined;
}

/**
 * The documented rule amount = item_total + shipping + handling + tax_total + insurance −
 * shipping_discount − discount. Published samples break it, so the client checks it only when
 * the merchant turns `checkAmountComponents` on.
 */
export function checkAmountComponents(parts: AmountComponents): void {
  const sum =
    (parts.item_total ?? 0) + (parts.shipping ?? 0) + (parts.handling ?? 0) + (parts.tax_total ?? 0) +
    (parts.insurance ?? 0) - (parts.shipping_discount ?? 0) - (parts.discount ?? 0);
  if (sum !== parts.amount) {
    throw new ValidationError([
      { field: 'amount', message: `must equal item_total + shipping + handling + tax_total + insurance − shipping_discount − discount (${sum}), got ${parts.amount}` },
    ]);
  }
}
