import { describe, expect, it } from 'vitest';
import { behaviourOf, checkCard, isCardProblem, isExpired, TEST_CARDS } from '../../../server/sandbox/cards.js';
import { luhnValid, maskCardNumber as maskCard } from '../../../server/card-number.js';

const now = new Date('2026-06-15T12:00:00Z');

describe('test cards', () => {
  it('every documented test card passes the Luhn check', () => {
    for (const card of Object.keys(TEST_CARDS)) expect(luhnValid(card), card).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(luhnValid('42424242')).toBe(false);
  });

  it('masks as first 6, six stars, last 4', () => {
    expect(maskCard('4000000000003220')).toBe('400000******3220');
  });

  it('maps numbers to behaviours, unknown valid numbers approve', () => {
    expect(behaviourOf('4000000000009235')).toBe('review');
    expect(behaviourOf('5555555555554444')).toBe('approve');
  });

  it('treats the current month as valid and last month as expired', () => {
    expect(isExpired(6, 2026, now)).toBe(false);
    expect(isExpired(5, 2026, now)).toBe(true);
    expect(isExpired(1, 27, now)).toBe(false);
  });

  it('checkCard returns only the masked card and behaviour, or the field at fault', () => {
    const ok = checkCard({ card: '4242 4242 4242 4242', expirationMonth: '05', expirationYear: '2026', securityCode: '123' }, now);
    expect(ok).toEqual({ masked: '424242******4242', behaviour: 'expired' });
    const bad = checkCard({ card: '4242424242424242', expirationMonth: '13', expirationYear: '2030', securityCode: '123' }, now);
    expect(isCardProblem(bad) && bad.field).toBe('expiration_month');
    const luhn = checkCard({ card: '1234567890123456', expirationMonth: '01', expirationYear: '2030', securityCode: '123' }, now);
    expect(isCardProblem(luhn) && luhn.field).toBe('card');
    expect(JSON.stringify(luhn)).not.toContain('1234567890123456');
  });
});
