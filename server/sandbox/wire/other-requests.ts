/**
 * Batch envelopes (capture, cancel, review, refund, updateOrders), the two form-encoded reads,
 * payout, cancel-subscription and optimise, from the interface's tables and gateway-notes §6-7.
 * Payout amounts are strings of digits ("10000"), unlike acquiring amounts.
 */
import { z } from 'zod';
import { country, currency, day, decimal, digits, httpUrl, identity, nested, opt, t } from './fields.js';

const element = { transaction_id: t(50).min(1), order_no: t(50).min(1), currency, amount: decimal };

/** `orders`/`trades`/… lists: comma-separated, at most 100 entries of 1-50 characters, ≤ 1000 characters. */
const idList = t(1000)
  .min(1)
  .refine((v) => v.split(',').length <= 100, 'must list at most 100 entries')
  .refine((v) => v.split(',').every((entry) => entry !== '' && entry.length <= 50), 'entries must be 1-50 characters');

const orders = <T extends z.ZodType>(schema: T) => nested(z.array(schema).min(1));

export const captureRequest = z.object({ ...identity, capture_orders: orders(z.object(element)) });
export const cancelRequest = z.object({ ...identity, cancel_orders: orders(z.object(element)) });
export const reviewRequest = z.object({ ...identity, review_orders: orders(z.object({ ...element, review_flag: t(10).min(1) })) });
export const refundRequest = z.object({
  ...identity,
  refund_orders: orders(z.object({ ...element, refund_amount: decimal, refund_reason: opt(t(50)) })),
});
export const updateOrdersRequest = z.object({
  ...identity,
  update_orders: orders(z.object({ transaction_id: t(50).min(1), status: t(20).min(1), ispass3d: t(10).min(1) })),
});

export const queryRequest = z.object({ ...identity, orders: opt(idList), trades: opt(idList) });
export const refundSearchRequest = z.object({
  ...identity,
  refund_orders: opt(idList),
  refund_references: opt(idList),
  merchant_refunds: opt(idList),
});

export const cancelSubscriptionRequest = z.object({ ...identity, recurring_id: t(50).min(1), contract_name: opt(t(200)) });

export const optimiseRequest = z.object({
  ...identity,
  request_id: t(50).min(1),
  amount: decimal,
  currency,
  shopper_id: opt(t(64)),
  shopper_email: t(100),
  shopper_ip: opt(t(50)),
  shopper_country: opt(country),
  shopper_level: opt(t(50)),
  platform: opt(t(20)),
});

const s = (max = 200): z.ZodOptional<z.ZodString> => opt(t(max));

const beneficiary = z.object({
  additional_info: opt(z.object({
    business_area: s(), business_phone_number: s(50), business_registration_number: s(100), personal_email: s(100),
    personal_id_number: s(100), personal_id_type: s(50), personal_mobile_number: s(50), personal_net_monthly_average_income: s(20),
    personal_phone_country_code: s(10), personal_phone_area_code: s(10), personal_fiscal_country: opt(country),
  })),
  address: opt(z.object({
    city: s(), country_code: opt(country), postcode: s(50), state: s(), street: s(), number: s(50), street_address: s(500), complement: s(),
  })),
  person_documents: opt(z.array(z.object({ file_type: s(100), file_url: opt(httpUrl), labels: opt(z.array(t(100)).max(50)) })).max(20)),
  bank_details: opt(z.object({
    account_currency: opt(currency), account_name: s(), owner_document_number: s(100), account_number: s(100),
    bank_account_category: s(), bank_branch: s(), bank_country_code: opt(country), bank_code: s(50), bank_name: s(),
    bank_street_address: s(500), binding_mobile_number: s(50), iban: s(50), swift_code: s(20), transaction_reference: s(),
  })),
  company_name: s(),
  date_of_birth: opt(day),
  entity_type: s(50),
  first_name: s(100),
  last_name: s(100),
});

const payer = z.object({
  additional_info: opt(z.object({
    business_registration_number: s(100), business_registration_type: s(50), external_id: s(100),
    personal_email: s(100), personal_id_number: s(100), job: s(100),
  })),
  address: opt(z.object({ city: s(), country_code: opt(country), postcode: s(50), state: s(), street_address: s(500) })),
  company_name: s(),
  date_of_birth: opt(day),
  entity_type: s(50),
  first_name: s(100),
  last_name: s(100),
});

export const payoutRequest = z
  .object({
    ...identity,
    beneficiary: opt(beneficiary),
    beneficiary_id: s(100),
    client_data: s(1000),
    fee_paid_by: s(20),
    payer: opt(payer),
    payment_amount: digits,
    payment_currency: currency,
    payment_date: opt(day),
    payment_method: s(20),
    reason: s(),
    reference: s(),
    request_id: z.uuid(),
    source_amount: opt(digits),
    source_currency: opt(currency),
    swift_charge_option: s(20),
    fund_source: s(50),
    notify_url: opt(httpUrl),
  })
  .superRefine((value, ctx) => {
    if (value.beneficiary === undefined && (value.beneficiary_id ?? '') === '') {
      ctx.addIssue({ code: 'custom', path: ['beneficiary'], message: 'is required unless beneficiary_id is given' });
    }
  });
export type PayoutRequest = z.infer<typeof payoutRequest>;
