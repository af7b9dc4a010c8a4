/**
 * The payout form: which fields staff fill in, and how the flat form becomes the payout request
 * tree (beneficiary with address and bank_details, payer, amounts, currency, reason, reference).
 * Field names are the wire paths, dotted, so an error from the client's schema names the field
 * staff see.
 */
import { ValidationError } from '../errors.js';
import { parseWireAmount } from '../gateway/money.js';
import type { PayoutInput } from '../gateway/operations/payouts.js';
import type { FormFields } from '../http/form-body.js';

export interface PayoutField {
  name: string;
  label: string;
  required?: boolean;
  type?: 'text' | 'date' | 'select';
  options?: readonly string[];
  defaultValue?: string;
  max?: number;
}

export interface PayoutFieldset {
  legend: string;
  fields: PayoutField[];
}

const COUNTRY = 2;
export const PAYOUT_FIELDSETS: PayoutFieldset[] = [
  {
    legend: 'Payment',
    fields: [
      { name: 'payment_amount', label: 'Amount (e.g. 250.00)', required: true, max: 20 },
      { name: 'payment_currency', label: 'Currency', required: true, max: 3, defaultValue: 'EUR' },
      { name: 'source_currency', label: 'Source currency (optional)', max: 3 },
      { name: 'payment_date', label: 'Payment date', type: 'date' },
      { name: 'payment_method', label: 'Payment method', type: 'select', options: ['SWIFT', 'LOCAL'], defaultValue: 'SWIFT' },
      { name: 'fee_paid_by', label: 'Fee paid by', type: 'select', options: ['PAYER', 'BENEFICIARY'], defaultValue: 'PAYER' },
      { name: 'swift_charge_option', label: 'SWIFT charges', type: 'select', options: ['SHARED', 'OURS', 'BEN'], defaultValue: 'SHARED' },
      { name: 'fund_source', label: 'Fund source', type: 'select', options: ['DepositAccount', 'Credit', 'Debit', 'Prepaid', 'MobileMoneyAccount', 'Cash'], defaultValue: 'DepositAccount' },
      { name: 'reason', label: 'Reason', required: true, max: 200 },
      { name: 'reference', label: 'Reference', required: true, max: 200 },
    ],
  },
  {
    legend: 'Beneficiary',
    fields: [
      { name: 'beneficiary.entity_type', label: 'Entity type', type: 'select', options: ['COMPANY', 'INDIVIDUAL'], defaultValue: 'COMPANY' },
      { name: 'beneficiary.company_name', label: 'Company name', max: 200 },
      { name: 'beneficiary.first_name', label: 'First name', max: 100 },
      { name: 'beneficiary.last_name', label: 'Last name', max: 100 },
      { name: 'beneficiary.date_of_birth', label: 'Date of birth', type: 'date' },
    ],
  },
  {
    legend: 'Beneficiary address',
    fields: [
      { name: 'beneficiary.address.street_address', label: 'Street address', max: 500 },
      { name: 'beneficiary.address.city', label: 'City', max: 200 },
      { name: 'beneficiary.address.state', label: 'State / region', max: 200 },
      { name: 'beneficiary.address.postcode', label: 'Postcode', max: 50 },
      { name: 'beneficiary.address.country_code', label: 'Country (2 letters)', required: true, max: COUNTRY },
    ],
  },
  {
    legend: 'Bank details',
    fields: [
      { name: 'beneficiary.bank_details.account_name', label: 'Account name', required: true, max: 200 },
      { name: 'beneficiary.bank_details.account_number', label: 'Account number', max: 100 },
      { name: 'beneficiary.bank_details.iban', label: 'IBAN', max: 50 },
      { name: 'beneficiary.bank_details.swift_code', label: 'SWIFT / BIC', max: 20 },
      { name: 'beneficiary.bank_details.bank_name', label: 'Bank name', max: 200 },
      { name: 'beneficiary.bank_details.bank_country_code', label: 'Bank country (2 letters)', required: true, max: COUNTRY },
      { name: 'beneficiary.bank_details.account_currency', label: 'Account currency', max: 3 },
    ],
  },
  {
    legend: 'Payer',
    fields: [
      { name: 'payer.entity_type', label: 'Entity type', type: 'select', options: ['COMPANY', 'INDIVIDUAL'], defaultValue: 'COMPANY' },
      { name: 'payer.company_name', label: 'Company name', max: 200 },
      { name: 'payer.first_name', label: 'First name', max: 100 },
      { name: 'payer.last_name', label: 'Last name', max: 100 },
      { name: 'payer.address.street_address', label: 'Street address', max: 500 },
      { name: 'payer.address.city', label: 'City', max: 200 },
      { name: 'payer.address.country_code', label: 'Country (2 letters)', max: COUNTRY },
    ],
  },
];

export const PAYOUT_FIELDS: PayoutField[] = PAYOUT_FIELDSETS.flatMap((s) => s.fields);
const UPPER = new Set(['payment_currency', 'source_currency', 'beneficiary.address.country_code', 'beneficiary.bank_details.bank_country_code',
  'beneficiary.bank_details.account_currency', 'payer.address.country_code', 'beneficiary.bank_details.swift_code', 'beneficiary.bank_details.iban']);

/** The submitted values by field name (trimmed), defaults filled for a fresh form. */
export function payoutValues(fields: FormFields | null): Record<string, string> {
  const values: Record<string, string> = {};
  for (const f of PAYOUT_FIELDS) {
    const raw = fields === null ? (f.defaultValue ?? '') : (fields[f.name]?.[0] ?? '');
    values[f.name] = UPPER.has(f.name) ? raw.trim().toUpperCase().replace(/\s+/g, f.name.endsWith('iban') ? '' : ' ') : raw.trim();
  }
  return values;
}

function setPath(tree: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = tree;
  keys.slice(0, -1).forEach((key) => {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  });
  node[keys[keys.length - 1] ?? path] = value;
}

/**
 * Builds the payout input (wire names, amounts in minor units) from the form values. Empty
 * fields are left out. Throws ValidationError naming the field for what the form itself checks;
 * the client's schema checks the rest.
 */
export function buildPayoutInput(values: Record<string, string>, requestId: string): PayoutInput {
  const issues: { field: string; message: string }[] = [];
  for (const f of PAYOUT_FIELDS) {
    const value = values[f.name] ?? '';
    if (f.required === true && value === '') issues.push({ field: f.name, message: 'is required' });
    if (f.max !== undefined && value.length > f.max) issues.push({ field: f.name, message: `must be at most ${f.max} characters` });
    if (f.options !== undefined && value !== '' && !f.options.includes(value)) issues.push({ field: f.name, message: `must be one of ${f.options.join(', ')}` });
    if (value !== '' && f.name.endsWith('currency') && !/^[A-Z]{3}$/.test(value)) issues.push({ field: f.name, message: 'must be a three-letter currency code' });
    if (value !== '' && f.name.endsWith('country_code') && !/^[A-Z]{2}$/.test(value)) issues.push({ field: f.name, message: 'must be a two-letter country code' });
    if (value !== '' && f.type === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(value)) issues.push({ field: f.name, message: 'must be a date (YYYY-MM-DD)' });
  }
  const beneficiaryName = (values['beneficiary.company_name'] ?? '') + (values['beneficiary.first_name'] ?? '') + (values['beneficiary.last_name'] ?? '');
  if (beneficiaryName === '') issues.push({ field: 'beneficiary.company_name', message: 'give a company name or a first and last name' });
  if (issues.length > 0) throw new ValidationError(issues);

  const tree: Record<string, unknown> = { request_id: requestId };
  for (const f of PAYOUT_FIELDS) {
    const value = values[f.name] ?? '';
    if (value === '' || f.name === 'payment_amount') continue;
    setPath(tree, f.name, value);
  }
  tree.payment_amount = parseWireAmount(values.payment_amount ?? '', values.payment_currency ?? '', 'payment_amount');
  if (tree.payment_amount === 0) throw new ValidationError([{ field: 'payment_amount', message: 'must be more than zero' }]);
  return tree as PayoutInput;
}

export function beneficiaryLabel(values: Record<string, string>): string {
  const company = values['beneficiary.company_name'] ?? '';
  if (company !== '') return company;
  return `${values['beneficiary.first_name'] ?? ''} ${values['beneficiary.last_name'] ?? ''}`.trim();
}
