/**
 * Value shapes of the interface's "Formats" table, as the sandbox reads and writes them: decimal
 * amount strings, digit-string payout amounts, the 14-digit timestamp, dates, masked cards.
 * String arithmetic only, so no floating point touches an amount.
 */

/** ISO 4217 minor-unit exponents that are not 2. */
const EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0,
  UGX: 0, UYI: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
};

export const exponentOf = (currency: string): number => EXPONENTS[currency] ?? 2;

/** Minor units to a decimal string: 1050 USD → "10.50", 1000 JPY → "1000". */
export function decimalAmount(minor: number, currency: string): string {
  const exponent = exponentOf(currency);
  if (exponent === 0) return String(minor);
  const digits = String(minor).padStart(exponent + 1, '0');
  return `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

const DECIMAL_RE = /^(\d{1,15})(?:\.(\d{1,15}))?$/;

/**
 * A decimal amount string to minor units, or a sentence saying why not. Fewer decimals than the
 * currency has are fine ("10.5"), extra zeros too; a non-zero digit below the minor unit is not.
 */
export function readDecimalAmount(value: string, currency: string): number | string {
  const match = DECIMAL_RE.exec(value);
  if (!match) return 'must be a decimal amount like "10.00"';
  const exponent = exponentOf(currency);
  const fraction = match[2] ?? '';
  if (/[1-9]/.test(fraction.slice(exponent))) return `has more decimals than ${currency} allows (${exponent})`;
  const minor = Number((match[1] ?? '0') + fraction.slice(0, exponent).padEnd(exponent, '0'));
  return Number.isSafeInteger(minor) ? minor : 'is too large';
}

/** How a payout's digit-string amount is read (the unit is not published). */
export type PayoutAmountUnit = 'minor' | 'major';

/** `payment_amount` / `source_amount`: a string of digits, in minor or whole major units. */
export function readPayoutAmount(value: string, currency: string, unit: PayoutAmountUnit): number | string {
  if (!/^\d{1,15}$/.test(value)) return 'must be a string of digits, e.g. "10000"';
  const minor = unit === 'minor' ? Number(value) : Number(value) * 10 ** exponentOf(currency);
  return Number.isSafeInteger(minor) ? minor : 'is too large';
}

/** Minor units as a JSON number in the payout unit: 10050 USD → 100.5 (major) or 10050 (minor). */
export function payoutNumber(minor: number, currency: string, unit: PayoutAmountUnit): number {
  return unit === 'minor' ? minor : Number(decimalAmount(minor, currency));
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** yyyyMMddHHmmss in UTC (transaction_date, refund_date, refund_processing_date). */
export function timestamp14(date: Date): string {
  return (
    pad(date.getUTCFullYear(), 4) + pad(date.getUTCMonth() + 1) + pad(date.getUTCDate()) +
    pad(date.getUTCHours()) + pad(date.getUTCMinutes()) + pad(date.getUTCSeconds())
  );
}

/** YYYY-MM-DD (query recurring_deduction_time). */
export const isoDay = (date: Date): string => `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;

/** YYYY-MM-DD HH:MM:SS (recurring_deduction_time of the direct payment reply). */
export const daySpaceTime = (date: Date): string =>
  `${isoDay(date)} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;

/** ISO 8601 with a numeric offset (payout created_at, last_updated_at). */
export const isoWithOffset = (date: Date): string => `${daySpaceTime(date).replace(' ', 'T')}+00:00`;

/** Luhn (mod 10) check of 12-19 digits. */
export function passesLuhn(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** The masked card the gateway answers with: first 6, `******`, last 4. */
export const maskedCard = (digits: string): string => `${digits.slice(0, 6)}******${digits.slice(-4)}`;
