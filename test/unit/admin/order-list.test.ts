import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../server/errors.js';
import { MAX_JOB_ORDERS, parseOrderList } from '../../../server/admin/order-list.js';

function fieldError(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('parseOrderList', () => {
  it('reads one per line or comma-separated, CRLF, a BOM, blank lines and quoted entries', () => {
    expect(parseOrderList('\uFEFFA-1\r\nB-2, C-3\n\n"D-4",E/5\r')).toEqual(['A-1', 'B-2', 'C-3', 'D-4', 'E/5']);
  });

  it('puts ticked orders first and keeps each order once', () => {
    expect(parseOrderList('B-2\nA-1\nB-2', ['A-1', 'Z-9'])).toEqual(['A-1', 'Z-9', 'B-2']);
  });

  it('refuses anything that is not an order number, naming the line', () => {
    const err = fieldError(() => parseOrderList('A-1\nB 2'));
    expect(err.field).toBe('orders');
    expect(err.message).toContain('line 2');
    expect(() => parseOrderList('<script>')).toThrow(ValidationError);
    expect(() => parseOrderList('x'.repeat(51))).toThrow(/not an order number/);
    expect(() => parseOrderList("A';DROP")).toThrow(ValidationError);
  });

  it('refuses an empty list and more than 1000 orders', () => {
    expect(() => parseOrderList(' \n , ')).toThrow(/at least one/);
    const many = Array.from({ length: MAX_JOB_ORDERS + 1 }, (_, i) => `O${i}`);
    expect(() => parseOrderList(many.join(','))).toThrow(/at most 1000/);
    expect(parseOrderList(many.slice(0, MAX_JOB_ORDERS).join('\n'))).toHaveLength(MAX_JOB_ORDERS);
    expect(fieldError(() => parseOrderList('', [], 'references', 2)).field).toBe('references');
  });
});
