/**
 * Payouts (/v1/payout): a JSON request with beneficiary and payer trees; the reply echoes the
 * request (including `encryption_data`) and adds amounts, fees, status and references. Unlike
 * acquiring amounts, `payment_amount` and `source_amount` are strings of digits ("10000").
 */
import { z } from 'zod';
import {
  country, currency, isoDate, isoDateTimeOffset, looseNumber, requestIdentity, text, url, uuid,
} from './common.js';

const opt = <T extends z.ZodType>(schema: T): z.ZodOptional<T> => schema.optional();
const t = (max = 200): z.ZodOptional<z.ZodString> => text(max).optional();

export const beneficiaryAdditionalInfoSchema = z.object({
  business_area: t(),
  business_phone_number: t(50),
  business_registration_number: t(100),
  personal_email: t(100),
  personal_id_number: t(100),
  personal_id_type: t(50),
  personal_mobile_number: t(50),
  personal_net_monthly_average_income: t(20),
  personal_phone_country_code: t(10),
  personal_phone_area_code: t(10),
  personal_fiscal_country: opt(country),
});

export const beneficiaryAddressSchema = z.object({
  city: t(),
  country_code: opt(country),
  postcode: t(50),
  state: t(),
  street: t(),
  number: t(50),
  street_address: t(500),
  complement: t(),
});

export const personDocumentSchema = z.object({
  file_type: t(100),
  file_url: opt(url),
  labels: opt(z.array(text(100)).max(50)),
});

export const bankDetailsSchema = z.object({
  account_currency: opt(currency),
  account_name: t(),
  owner_document_number: t(100),
  account_number: t(100),
  /** Comma-separated list of categories. */
  bank_account_category: t(),
  bank_branch: t(),
  bank_country_code: opt(country),
  bank_code: t(50),
  bank_name: t(),
  bank_street_address: t(500),
  binding_mobile_number: t(50),
  iban: t(50),
  swift_code: t(20),
  transaction_reference: t(),
});

export const beneficiarySchema = z.object({
  additional_info: opt(beneficiaryAdditionalInfoSchema),
  address: opt(beneficiaryAddressSchema),
  person_documents: opt(z.array(personDocumentSchema).max(20)),
  bank_details: opt(bankDetailsSchema),
  company_name: t(),
  date_of_birth: opt(isoDate),
  entity_type: t(50),
  first_name: t(100),
  last_name: t(100),
});

export const payerSchema = z.object({
  additional_info: opt(
    z.object({
      business_registration_number: t(100),
      business_registration_type: t(50),
      external_id: t(100),
      personal_email: t(100),
      personal_id_number: t(100),
      job: t(100),
    }),
  ),
  address: opt(
    z.object({ city: t(), country_code: opt(country), postcode: t(50), state: t(), street_address: t(500) }),
  ),
  company_name: t(),
  date_of_birth: opt(isoDate),
  entity_type: t(50),
  first_name: t(100),
  last_name: t(100),
});

/** A payout amount on the wire: digits only, in the unit the client's `payoutAmountUnit` names. */
export const payoutWireAmount = z.string().max(15).regex(/^\d{1,15}$/, 'must be a string of digits, e.g. "10000"');

export const payoutFields = {
  ...requestIdentity,
  beneficiary: opt(beneficiarySchema),
  beneficiary_id: t(100),
  client_data: t(1000),
  fee_paid_by: t(20),
  payer: opt(payerSchema),
  payment_amount: payoutWireAmount,
  payment_currency: currency,
  payment_date: opt(isoDate),
  payment_method: t(20),
  reason: t(),
  reference: t(),
  request_id: uuid,
  source_amount: opt(payoutWireAmount),
  source_currency: opt(currency),
  swift_charge_option: t(20),
  fund_source: t(50),
  notify_url: opt(url),
};

export const payoutRequestSchema = z.object(payoutFields).superRefine((value, ctx) => {
  if (value.beneficiary === undefined && (value.beneficiary_id ?? '') === '') {
    ctx.addIssue({ code: 'custom', path: ['beneficiary'], message: 'is required unless beneficiary_id is given' });
  }
});
export type PayoutRequest = z.infer<typeof payoutRequestSchema>;

const s = (max = 1000): z.ZodOptional<z.ZodString> => z.string().max(max).optional();

/** The reply echoes the request leniently; only the fields the kit reads are checked closely. */
export const payoutResponseSchema = z.object({
  merchant_id: s(20),
  account_id: s(20),
  encryption_data: s(128),
  beneficiary: opt(
    beneficiarySchema.extend({ bank_details: opt(bankDetailsSchema.extend({ local_clearing_system: s(100) })) }),
  ),
  beneficiary_id: s(100),
  payer: opt(payerSchema),
  payer_id: s(100),
  client_data: s(),
  fee_paid_by: s(20),
  payment_amount: opt(looseNumber),
  payment_currency: opt(currency),
  payment_date: s(30),
  payment_method: s(20),
  reason: s(200),
  reference: s(200),
  request_id: s(50),
  source_amount: opt(looseNumber),
  source_currency: opt(currency),
  swift_charge_option: s(20),
  fund_source: s(50),
  amount_beneficiary_receives: opt(looseNumber),
  amount_payer_pays: opt(looseNumber),
  fee_amount: opt(looseNumber),
  fee_currency: opt(currency),
  created_at: opt(isoDateTimeOffset),
  last_updated_at: opt(isoDateTimeOffset),
  failure_reason: s(),
  failure_type: s(50),
  transaction_id: s(50),
  short_reference_id: opt(z.string().regex(/^\d{8}-[A-Za-z0-9]{6}$/, 'must be yyyyMMdd-XXXXXX')),
  status: s(50),
  return_status: s(20),
  return_message: s(),
});
export type PayoutResponse = z.infer<typeof payoutResponseSchema>;
