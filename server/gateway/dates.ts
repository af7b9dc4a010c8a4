/**
 * The gateway's date shapes. Dates the kit writes are UTC: the interface does not name a time
 * zone, so the kit picks the one that cannot be misread across servers.
 */
import { ValidationError } from '../errors.js';

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** yyyyMMddHHmmss (transaction_date, refund_date, refund_processing_date). */
export function formatGatewayTimestamp(date: Date): string {
  return (
    pad(date.getUTCFullYear(), 4) + pad(date.getUTCMonth() + 1) + pad(date.getUTCDate()) +
    pad(date.getUTCHours()) + pad(date.getUTCMinutes()) + pad(date.getUTCSeconds())
  );
}

const TIMESTAMP_RE = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

export function parseGatewayTimestamp(value: string, field = 'transaction_date'): Date {
  const m = TIMESTAMP_RE.exec(value);
  if (!m) throw new ValidationError([{ field, message: 'must be 14 digits, yyyyMMddHHmmss' }]);
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    throw new ValidationError([{ field, message: 'is not a real date and time' }]);
  }
  return date;
}

/** YYYY-MM-DD (payout payment_date, date_of_birth; query recurring_deduction_time). */
export function formatIsoDate(date: Date): string {
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

/** YYYY-MM-DD HH:MM:SS (recurring_deduction_time in the direct payment response). */
export function formatDateTimeSpace(date: Date): string {
  return `${formatIsoDate(date)} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

/** ISO 8601 with a numeric offset (payout created_at, last_updated_at): 2026-01-31T10:00:00+00:00. */
export function formatIsoWithOffset(date: Date): string {
  return `${formatIsoDate(date)}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}+00:00`;
}

export const GATEWAY_TIMESTAMP_RE = TIMESTAMP_RE;
export const ISO_DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
export const DATE_TIME_SPACE_RE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
export const ISO_WITH_OFFSET_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:?\d{2}|Z)$/;
/** Authorise birth_date: two digits, dash, two digits, dash, four digits. */
export const BIRTH_DATE_RE = /^\d{2}-\d{2}-\d{4}$/;
