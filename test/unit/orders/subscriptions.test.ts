/** The pure parts of subscription deductions: recognising one, the hooks it owes, the next date. */
import { describe, expect, it } from 'vitest';
import { owedHooks } from '../../../server/orders/hooks.js';
import { afterPeriod, deductionOrderNo, isDeductionOf } from '../../../server/orders/subscriptions.js';
import { initialOrder, type Order } from '../../../server/orders/types.js';

const parent: Order = { ...initialOrder({ id: 'p1', orderNo: 'SUB-1', amount: 2500, currency: 'USD', state: 'paid', data: { recurringId: 'RC1' } }, new Date()), transactionId: 'TX-FIRST' };
const hooks = { onPaid: () => undefined, onFailed: () => undefined, onTransition: () => undefined, onRecurringCharge: () => undefined, onRefunded: () => undefined };

describe('isDeductionOf', () => {
  it('is another transaction under the same recurring id of a first payment', () => {
    expect(isDeductionOf(parent, 'TX-2', 'RC1')).toBe(true);
    expect(isDeductionOf(parent, 'TX-FIRST', 'RC1')).toBe(false);
    expect(isDeductionOf(parent, 'TX-2', 'RC-OTHER')).toBe(false);
    expect(isDeductionOf(parent, 'TX-2', null)).toBe(false);
    expect(isDeductionOf(parent, null, 'RC1')).toBe(false);
    expect(isDeductionOf({ ...parent, transactionId: null }, 'TX-2', 'RC1')).toBe(false);
    expect(isDeductionOf({ ...parent, parentId: 'p0' }, 'TX-2', 'RC1')).toBe(false);
    expect(deductionOrderNo('SUB-1', 'TX-2')).toBe('SUB-1~TX-2');
  });
});

describe('owedHooks for a deduction', () => {
  it('owes onRecurringCharge instead of onTransition/onPaid/onFailed; other moves owe their usual hooks', () => {
    expect(owedHooks(hooks, { source: 'notify', transition: { from: 'created', to: 'paid' }, deduction: true })).toEqual([
      { hook: 'onRecurringCharge', payload: { source: 'notify', from: 'created', to: 'paid', status: 'paid' } },
    ]);
    expect(owedHooks(hooks, { source: 'notify', transition: { from: 'created', to: 'declined' }, deduction: true }).map((e) => [e.hook, e.payload.status])).toEqual([['onRecurringCharge', 'failed']]);
    expect(owedHooks(hooks, { source: 'admin', transition: { from: 'paid', to: 'refunded' }, deduction: true }).map((e) => e.hook)).toEqual(['onTransition', 'onRefunded']);
    expect(owedHooks(hooks, { source: 'notify', transition: { from: 'pending', to: 'paid' } }).map((e) => e.hook)).toEqual(['onTransition', 'onPaid']);
    expect(owedHooks({}, { source: 'notify', transition: { from: 'created', to: 'paid' }, deduction: true })).toEqual([]);
  });
});

describe('afterPeriod', () => {
  it('adds one period to a date in either reply format', () => {
    expect(afterPeriod('2026-01-15 10:00:00', '1 month')).toBe('2026-02-15');
    expect(afterPeriod('2026-02-01', '2 week')).toBe('2026-02-15');
    expect(afterPeriod('2026-02-01', '1 year')).toBe('2027-02-01');
    expect(afterPeriod('2026-02-01', '3 days')).toBe('2026-02-04');
    expect(afterPeriod('not a date', '1 month')).toBeNull();
    expect(afterPeriod('2026-02-01', 'fortnightly')).toBeNull();
  });

  it('clamps a month to its last day and keeps the contract\'s day after a short month', () => {
    expect(afterPeriod('2026-01-31 10:00:00', '1 month')).toBe('2026-02-28');
    expect(afterPeriod('2028-01-31', '1 month')).toBe('2028-02-29');
    expect(afterPeriod('2026-02-28', '1 month', 31)).toBe('2026-03-31');
    expect(afterPeriod('2026-03-31', '1 month', 31)).toBe('2026-04-30');
    expect(afterPeriod('2026-04-30', '1 month', 31)).toBe('2026-05-31');
    expect(afterPeriod('2026-02-28', '1 month', 30)).toBe('2026-03-30');
    expect(afterPeriod('2025-12-31', '2 months')).toBe('2026-02-28');
    expect(afterPeriod('2028-02-29', '1 year')).toBe('2029-02-28');
    expect(afterPeriod('2029-02-28', '1 year', 29)).toBe('2030-02-28');
    expect(afterPeriod('2031-02-28', '1 year', 29)).toBe('2032-02-29');
  });
});
