import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../server/errors.js';
import {
  checkAmountComponents, currencyExponent, parseWireAmount, toWireAmount,
} from '../../../server/gateway/money.js';

describe('money', () => {
  it('uses the ISO 4217 exponent of each currency', () => {
    expect(currencyExponent('JPY')).toBe(0);
    expect(currencyExponent('KWD')).toBe(3);
    expect(currencyExponent('USD')).toBe(2);
    expect(currencyExponent('EUR')).toBe(2);
  });

  it('writes minor units as the wire decimal string', () => {
    expect(toWireAmount(1050, 'USD')).toBe('10.50');
    expect(toWireAmount(5, 'USD')).toBe('0.05');
    expect(toWireAmount(0, 'USD')).toBe('0.00');
    expect(toWireAmount(1000, 'JPY')).toBe('1000');
    expect(toWireAmount(1234, 'KWD')).toBe('1.234');
    expect(toWireAmount(7, 'KWD')).toBe('0.007');
  });

  it('reads wire decimals back to minor units', () => {
    expect(parseWireAmount('10.50', 'USD')).toBe(1050);
    expect(parseWireAmount('10.5', 'USD')).toBe(1050);
    expect(parseWireAmount('10', 'USD')).toBe(1000);
    expect(parseWireAmount('1000', 'JPY')).toBe(1000);
    expect(parseWireAmount('1000.00', 'JPY')).toBe(1000);
    expect(parseWireAmount('1.234', 'KWD')).toBe(1234);
  });

  it('round-trips every amount in every exponent', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), fc.constantFrom('USD', 'JPY', 'KWD', 'EUR', 'BHD', 'CLP'), (minor, cur) => {
        expect(parseWireAmount(toWireAmount(minor, cur), cur)).toBe(minor);
      }),
    );
  });

  it('refuses fractions of a minor unit, signs, exponents and junk', () => {
    for (const [value, cur] of [['10.505', 'USD'], ['1.5', 'JPY'], ['-1.00', 'USD'], ['1e3', 'USD'], ['', 'USD'], ['1,00', 'USD'], [' 1.00x', 'USD']] as const) {
      expect(() => parseWireAmount(value, cur), `${value} ${cur}`).toThrow(ValidationError);
    }
  });

  it('refuses non-integer, negative and unsafe minor units, and bad currency codes', () => {
    expect(() => toWireAmount(10.5, 'USD')).toThrow(ValidationError);
    expect(() => toWireAmount(-1, 'USD')).toThrow(ValidationError);
    expect(() => toWireAmount(2 ** 53, 'USD')).toThrow(ValidationError);
    expect(() => toWireAmount(100, 'usd')).toThrow(ValidationError);
    expect(() => toWireAmount(100, 'US')).toThrow(ValidationError);
  });

  it('names the field in a refusal', () => {
    try {
      toWireAmount(1.5, 'USD', 'refund_amount');
      expect.unreachable();
    } catch (error) {
      expect((error as ValidationError).field).toBe('refund_amount');
    }
  });

  it('checks the documented amount rule only as asked', () => {
    expect(() => {
      checkAmountComponents({ amount: 1100, item_total: 1000, shipping: 200, discount: 100 });
    }).not.toThrow();
    expect(() => {
      checkAmountComponents({ amount: 1000, item_total: 1000, shipping: 200 });
    }).toThrow(ValidationError);
  });
});
