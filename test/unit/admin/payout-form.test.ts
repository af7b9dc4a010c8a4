import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../server/errors.js';
import { payoutInputSchema } from '../../../server/gateway/operations/payouts.js';
import { buildPayoutInput, payoutValues } from '../../../server/admin/payout-form.js';

const REQUEST_ID = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';

function form(overrides: Record<string, string> = {}): Record<string, string[]> {
  const base: Record<string, string> = {
    payment_amount: '1000', payment_currency: 'jpy', reason: 'Refund of deposit', reference: 'R-1',
    'beneficiary.first_name': 'Aiko', 'beneficiary.last_name': 'Sato', 'beneficiary.entity_type': 'INDIVIDUAL',
    'beneficiary.address.country_code': 'jp', 'beneficiary.bank_details.account_name': 'Aiko Sato',
    'beneficiary.bank_details.bank_country_code': 'JP', 'beneficiary.bank_details.account_number': '1234567',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(base).map(([k, v]) => [k, [v]]));
}

describe('payout form', () => {
  it('builds the request tree with amounts in minor units of the currency and drops empty fields', () => {
    const input = buildPayoutInput(payoutValues(form()), REQUEST_ID);
    expect(input).toEqual({
      request_id: REQUEST_ID, payment_amount: 1000, payment_currency: 'JPY', reason: 'Refund of deposit', reference: 'R-1',
      beneficiary: {
        first_name: 'Aiko', last_name: 'Sato', entity_type: 'INDIVIDUAL',
        address: { country_code: 'JP' },
        bank_details: { account_name: 'Aiko Sato', bank_country_code: 'JP', account_number: '1234567' },
      },
    });
    expect(payoutInputSchema.safeParse(input).success).toBe(true);
  });

  it('fills defaults on a fresh form', () => {
    const values = payoutValues(null);
    expect(values).toMatchObject({ payment_method: 'SWIFT', fee_paid_by: 'PAYER', fund_source: 'DepositAccount', payment_amount: '' });
  });

  it.each([
    ['payment_amount', { payment_amount: '10.5' }],
    ['payment_amount', { payment_amount: '0' }],
    ['payment_currency', { payment_currency: 'EURO' }],
    ['beneficiary.address.country_code', { 'beneficiary.address.country_code': '' }],
    ['beneficiary.company_name', { 'beneficiary.first_name': '', 'beneficiary.last_name': '' }],
    ['fee_paid_by', { fee_paid_by: 'NOBODY' }],
    ['payment_date', { payment_date: '01/02/2025' }],
  ])('refuses a bad %s', (field, overrides) => {
    try {
      buildPayoutInput(payoutValues(form(overrides)), REQUEST_ID);
      throw new Error('expected a ValidationError');
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues.map((i) => i.field)).toContain(field);
    }
  });
});
