import { describe, expect, it } from 'vitest';
import { answerIsBehind, mismatchOf, withoutMismatchReasons } from '../../../server/orders/engine-facts.js';
import { initialOrder } from '../../../server/orders/types.js';

const order = (amount: number, currency: string) => initialOrder({ id: 'o1', orderNo: 'A-1', amount, currency }, new Date(0));

describe('mismatch reasons speak money', () => {
  it.each([
    [890, 'EUR', 1, 'EUR', '(0.01 EUR for order A-1; the order is 8.90 EUR)'],
    [1000, 'JPY', 999, 'JPY', '(999 JPY for order A-1; the order is 1000 JPY)'],
    [1234, 'KWD', 1235, 'KWD', '(1.235 KWD for order A-1; the order is 1.234 KWD)'],
    [890, 'EUR', 890, 'USD', '(8.90 USD for order A-1; the order is 8.90 EUR)'],
  ])('%i %s vs %i %s', (amount, currency, claimed, claimedCurrency, text) => {
    const reason = mismatchOf(order(amount, currency), { source: 'notify', outcome: 'approved', amount: claimed, currency: claimedCurrency });
    expect(reason).toContain(text);
    expect(withoutMismatchReasons(`Other reason\n${reason ?? ''}`)).toBe('Other reason');
    expect(withoutMismatchReasons(reason)).toBeNull();
  });
});

describe('answerIsBehind', () => {
  it('a claim the gateway has not reached yet is behind; agreement or contradiction is not', () => {
    expect(answerIsBehind('approved', 'requires_action')).toBe(true);
    expect(answerIsBehind('refunded', 'approved')).toBe(true);
    expect(answerIsBehind('chargeback', 'approved')).toBe(true);
    expect(answerIsBehind('approved', 'unknown')).toBe(true);
    expect(answerIsBehind('approved', 'approved')).toBe(false);
    expect(answerIsBehind('declined', 'approved')).toBe(false);
  });
});
