/** The sandbox's deduction calendar: months and years keep the contract's day, clamped to short months. */
import { describe, expect, it } from 'vitest';
import { nextDeduction } from '../../../server/sandbox/payments.js';

const at = (iso: string): Date => new Date(iso);
const next = (from: string, interval: string, count: number, anchorDay?: number): string => nextDeduction(at(from), interval, count, anchorDay).toISOString();

describe('nextDeduction', () => {
  it('clamps 31 January + 1 month to the last day of February, keeping the time of day', () => {
    expect(next('2026-01-31T10:20:30.000Z', 'month', 1)).toBe('2026-02-28T10:20:30.000Z');
    expect(next('2028-01-31T10:20:30.000Z', 'month', 1)).toBe('2028-02-29T10:20:30.000Z');
  });

  it('stays anchored to the contract start day: 31 Jan → 28 Feb → 31 Mar → 30 Apr → 31 May', () => {
    const dates = ['2026-01-31T09:00:00.000Z'];
    for (let i = 0; i < 4; i++) dates.push(next(dates.at(-1) ?? '', 'month', 1, 31));
    expect(dates.map((d) => d.slice(0, 10))).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31']);
  });

  it('adds several months and years by the calendar, days and weeks by their length', () => {
    expect(next('2025-12-31T00:00:00.000Z', 'month', 2)).toBe('2026-02-28T00:00:00.000Z');
    expect(next('2026-11-15T00:00:00.000Z', 'month', 3)).toBe('2027-02-15T00:00:00.000Z');
    expect(next('2028-02-29T00:00:00.000Z', 'year', 1)).toBe('2029-02-28T00:00:00.000Z');
    expect(next('2031-02-28T00:00:00.000Z', 'year', 1, 29)).toBe('2032-02-29T00:00:00.000Z');
    expect(next('2026-01-31T00:00:00.000Z', 'week', 2)).toBe('2026-02-14T00:00:00.000Z');
    expect(next('2026-01-31T00:00:00.000Z', 'day', 1)).toBe('2026-02-01T00:00:00.000Z');
  });
});
