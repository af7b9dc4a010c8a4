/**
 * Order numbers for a batch job, from the list's checkboxes, a textarea or an uploaded CSV:
 * one per line or comma-separated. Strict on purpose: anything that is not an order number is
 * refused with its line, so a wrong file never starts a job.
 */
import { ValidationError } from '../errors.js';

export const MAX_JOB_ORDERS = 1000;

/** Gateway order numbers are at most 50 characters; no spaces, quotes or separators. */
const ORDER_NO_RE = /^[A-Za-z0-9][A-Za-z0-9._:/#+-]{0,49}$/;

export function isOrderNo(value: string): boolean {
  return ORDER_NO_RE.test(value);
}

/**
 * Parses `text` (and any `extra` values, e.g. ticked checkboxes) into distinct order numbers in
 * first-seen order. Blank lines and a surrounding pair of double quotes are tolerated; duplicates
 * are kept once. Throws ValidationError on `field` for a bad entry or more than `max`.
 */
export function parseOrderList(text: string, extra: readonly string[] = [], field = 'orders', max = MAX_JOB_ORDERS): string[] {
  const seen = new Set<string>();
  const add = (raw: string, where: string): void => {
    let value = raw.trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1).trim();
    if (value === '') return;
    if (!isOrderNo(value)) {
      throw new ValidationError([{ field, message: `${where}: "${value.slice(0, 60)}" is not an order number (letters, digits and . _ : / # + - only, at most 50)` }]);
    }
    seen.add(value);
    if (seen.size > max) throw new ValidationError([{ field, message: `at most ${max} orders per job` }]);
  };
  for (const value of extra) add(value, 'selected order');
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  lines.forEach((line, i) => {
    for (const part of line.split(',')) add(part, `line ${i + 1}`);
  });
  if (seen.size === 0) throw new ValidationError([{ field, message: 'give at least one order number' }]);
  return [...seen];
}
