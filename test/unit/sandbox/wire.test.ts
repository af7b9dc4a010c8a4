/**
 * The sandbox's own reading of the wire formats (server/sandbox/wire), checked against values
 * worked out by hand from the interface, not against the client's code.
 */
import { describe, expect, it } from 'vitest';
import { decimalAmount, payoutNumber, readDecimalAmount, readPayoutAmount } from '../../../server/sandbox/wire/format.js';
import { RECIPES, sign, signedText, verify } from '../../../server/sandbox/wire/signature.js';
import { responXml } from '../../../server/sandbox/wire/xml.js';
import { FIXTURE_ACCOUNT } from '../../fixtures/wire/account.js';
import { refundFixture } from '../../fixtures/wire/refund.js';

describe('sandbox wire formats', () => {
  it('decimal amounts: minor units and back, by the currency exponent', () => {
    expect([decimalAmount(2650, 'USD'), decimalAmount(1000, 'JPY'), decimalAmount(1234, 'KWD'), decimalAmount(5, 'EUR')]).toEqual(['26.50', '1000', '1.234', '0.05']);
    expect([readDecimalAmount('26.5', 'USD'), readDecimalAmount('1000.00', 'JPY'), readDecimalAmount('1.234', 'KWD')]).toEqual([2650, 1000, 1234]);
    expect(readDecimalAmount('26.505', 'USD')).toMatch(/more decimals/);
    expect(readDecimalAmount('-1', 'USD')).toMatch(/decimal amount/);
  });

  it('payout amounts: digits only, in the configured unit', () => {
    expect(readPayoutAmount('100', 'EUR', 'major')).toBe(10000);
    expect(readPayoutAmount('10000', 'EUR', 'minor')).toBe(10000);
    expect(readPayoutAmount('100', 'JPY', 'major')).toBe(100);
    expect(readPayoutAmount('100.00', 'EUR', 'major')).toMatch(/string of digits/);
    expect([payoutNumber(10050, 'EUR', 'major'), payoutNumber(10050, 'EUR', 'minor')]).toEqual([100.5, 10050]);
  });

  it('signatures: the published refund recipe gives the hash computed by hand for the fixture', () => {
    expect(signedText(RECIPES.refund, refundFixture.request)).toBe('701001701001010SBX20260131100000K7Q2ZD');
    expect(sign('refund', refundFixture.request, FIXTURE_ACCOUNT.signKey)).toBe(refundFixture.request.encryption_data);
    expect(verify('refund', refundFixture.request, String(refundFixture.request.encryption_data).toUpperCase(), FIXTURE_ACCOUNT.signKey)).toBe(true);
    expect(verify('refund', refundFixture.request, String(refundFixture.request.encryption_data), 'another-key')).toBe(false);
    // Whitespace in values is removed before hashing.
    expect(signedText(['a', 'b'], { a: 'x y', b: ' z\t' })).toBe('xyz');
  });

  it('respon XML: flat elements in order, text escaped, risk_reasons repeated', () => {
    expect(responXml({ order_no: 'A&B', note: undefined, risk_reasons: [{ name: 'card_bin', status: 'ACCEPT' }] })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><respon><order_no>A&amp;B</order_no><risk_reasons><name>card_bin</name><status>ACCEPT</status></risk_reasons></respon>',
    );
  });
});
