import { describe, expect, it } from 'vitest';
import { parsePayBody } from '../../../server/checkout/pay/schema.js';
import { luhnValid } from '../../../server/card-number.js';
import { formatMoney } from '../../../server/checkout/pay/form.js';
import { subscriptionInput } from '../../../server/gateway/payment-request.js';

const NOW = () => new Date('2026-05-15T12:00:00Z');
const CARD = { method: 'card', card: '4242 4242 4242 4242', expiration_month: '5', expiration_year: '26', security_code: '123', first_name: 'Ada', last_name: "O'Neil-Byron" };

describe('pay form body', () => {
  it('normalises a valid card submission', () => {
    expect(parsePayBody(CARD, NOW)).toEqual({
      ok: true,
      body: { method: 'card', card: '4242424242424242', expiration_month: '05', expiration_year: '2026', security_code: '123', first_name: 'Ada', last_name: "O'Neil-Byron" },
    });
  });

  it('accepts a card expiring this month and refuses last month', () => {
    expect(parsePayBody({ ...CARD, expiration_month: '04' }, NOW)).toEqual({ ok: false, errors: { expiration_year: 'The card has expired: check the expiry date' } });
  });

  it('names each bad field once and never echoes the value', () => {
    const result = parsePayBody({ method: 'card', card: '4242424242424241', expiration_month: '13', expiration_year: '123', security_code: '12345', first_name: '', last_name: '<b>' }, NOW);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.errors).sort()).toEqual(['card', 'expiration_month', 'expiration_year', 'first_name', 'last_name', 'security_code']);
    expect(JSON.stringify(result.errors)).not.toContain('4242424242424241');
    expect(JSON.stringify(result.errors)).not.toContain('12345');
  });

  it('checks length and Luhn of the card number', () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(parsePayBody({ ...CARD, card: '42424242424' }, NOW)).toMatchObject({ ok: false, errors: { card: 'The card number must be 12 to 19 digits' } });
    expect(parsePayBody({ ...CARD, card: '4242-4242-4242-4242' }, NOW).ok).toBe(true);
  });

  it('requires a payment method code for APM and nothing else for hosted', () => {
    expect(parsePayBody({ method: 'apm', payment_method: 'IDEAL' })).toEqual({ ok: true, body: { method: 'apm', payment_method: 'IDEAL' } });
    expect(parsePayBody({ method: 'apm', payment_method: 'a b' })).toMatchObject({ ok: false, errors: { payment_method: 'Choose a payment method from the list' } });
    expect(parsePayBody({ method: 'hosted', amount: '1' })).toEqual({ ok: true, body: { method: 'hosted' } });
    expect(parsePayBody({ method: 'cash' })).toEqual({ ok: false, errors: { method: 'Choose how to pay' } });
    expect(parsePayBody(undefined)).toEqual({ ok: false, errors: { method: 'Choose how to pay' } });
  });
});

describe('amounts and stored data for the page and the request', () => {
  it('formats minor units exactly with the currency exponent', () => {
    expect(formatMoney(2500, 'USD')).toBe('$25.00');
    expect(formatMoney(1000, 'JPY')).toBe('¥1,000');
    expect(formatMoney(1234, 'KWD').replace(/\s/g, ' ')).toBe('KWD 1.234');
    expect(formatMoney(900719925474099, 'EUR')).toBe('€9,007,199,254,740.99');
  });

  it('turns the stored wire-shaped subscription into the client input', () => {
    expect(subscriptionInput({ contract_name: 'Tea club', contract_amount: '9.99', interval: 'month', interval_count: 1, contract: 7 }, 'EUR')).toEqual({
      contract_name: 'Tea club', contract_amount: 999, interval: 'month', interval_count: '1', contract: '7',
    });
    expect(subscriptionInput(undefined, 'EUR')).toBeUndefined();
  });
});
