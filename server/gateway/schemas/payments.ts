/**
 * Payment requests on the wire: direct (card) and APM to /v1/authorise, and the redirect
 * (hosted page) request to /v1/checkout. Required fields follow the public documentation;
 * everything else is optional. The plain `…Fields` shapes are exported so the client can derive
 * its input schemas from the same definitions.
 */
import { z } from 'zod';
import {
  birthDate, country, currency, email, orderNo, requestIdentity, text, unixSeconds, url, wireAmount,
} from './common.js';

const opt = <T extends z.ZodType>(schema: T): z.ZodOptional<T> => schema.optional();

export const cartItemSchema = z.object({
  basic_item_data: z.object({
    name: opt(text(255)),
    quantity: opt(z.string().regex(/^\d{1,9}$/, 'must be a whole number as a string')),
    type: opt(text(100)),
    price: opt(
      z.object({
        amount_usd: opt(z.number().nonnegative()),
        amount_local_currency: opt(z.number().nonnegative()),
        currency: opt(currency),
      }),
    ),
    category: opt(text(255)),
    productId: opt(text(100)),
  }),
});

export const accountOwnerSchema = z.object({
  first_name: opt(text(100)),
  last_name: opt(text(100)),
  email: opt(email),
  account_id: opt(text(100)),
  created: opt(z.number()),
  past_orders_count: opt(z.number().int().nonnegative()),
  past_orders_sum: opt(z.number().nonnegative()),
  lastLogin_ip: opt(text(50)),
  registration_ip: opt(text(50)),
});

export const totalDiscountSchema = z.object({
  coupon_code_used: opt(text(100)),
  discount_type: opt(text(100)),
});

export const additionalInformationSchema = z.object({
  mpi_info: z.object({
    eci: opt(text(10)),
    cavv: opt(text(100)),
    xid: opt(text(100)),
    dsTransID: opt(text(100)),
  }),
});

export const subscriptionSchema = z.object({
  contract: opt(text(200)),
  contract_name: opt(text(200)),
  contract_amount: opt(wireAmount),
  interval: opt(text(20)),
  interval_count: opt(z.string().regex(/^\d{1,4}$/, 'must be a whole number as a string')),
  billing_cycle: opt(z.number().int().nonnegative()),
  promotion_cycle: opt(z.number().int().nonnegative()),
  contract_start: opt(text(50)),
  contract_end: opt(text(50)),
  price_id: opt(text(100)),
});

const bankAccountSchema = z.object({
  account_type: opt(text(50)),
  account_number: opt(text(100)),
  branch_number: opt(text(50)),
  owner_document_number: opt(text(100)),
  owner_name: opt(text(200)),
  branch_country: opt(country),
  currency: opt(currency),
  bank: opt(z.object({ code: opt(text(50)), name: opt(text(200)) })),
});

export const personSchema = z.object({
  document_number: opt(text(100)),
  document_type: opt(text(50)),
  social_name: opt(text(200)),
  email: opt(email),
  phone_country_code: opt(country),
  phone_area_code: opt(text(10)),
  phone_number: opt(text(50)),
  birth_date: opt(text(20)),
  net_monthly_average_income: opt(text(20)),
  address_street: opt(text(200)),
  address_number: opt(text(50)),
  address_complement: opt(text(200)),
  address_postal_code: opt(text(50)),
  address_city: opt(text(100)),
  address_state: opt(text(100)),
  address_country: opt(country),
  fiscal_country: opt(country),
  documents: opt(
    z.object({
      file_type: opt(text(100)),
      file_data: opt(z.string().max(10_000_000)),
      file_url: opt(url),
      labels: opt(z.object({ person_bank_account_id: opt(text(100)), bank_account: opt(bankAccountSchema) })),
    }),
  ),
});

/** Order money parts besides `amount`. */
export const amountPartFields = {
  item_total: opt(wireAmount),
  shipping: opt(wireAmount),
  handling: opt(wireAmount),
  tax_total: opt(wireAmount),
  insurance: opt(wireAmount),
  shipping_discount: opt(wireAmount),
  discount: opt(wireAmount),
};

const billingFields = {
  billing_country: opt(country),
  billing_state: opt(text(100)),
  billing_city: opt(text(100)),
  billing_address: opt(text(500)),
  billing_postal_code: opt(text(50)),
};

const deliveryFields = {
  delivery_firstname: opt(text(100)),
  delivery_lastname: opt(text(100)),
  delivery_country: opt(country),
  delivery_state: opt(text(100)),
  delivery_city: opt(text(100)),
  delivery_address: opt(text(500)),
  delivery_postal_code: opt(text(50)),
};

/** Browser and device data collected on the pay page. */
export const deviceFields = {
  os: opt(text(100)),
  browser: opt(text(100)),
  browser_lang: opt(text(50)),
  time_zone: opt(text(50)),
  resolution: opt(text(50)),
  color_depth: opt(text(10)),
  accept: opt(text(1000)),
  user_agent: opt(text(1000)),
  cookie_new: opt(text(1000)),
  cookie_old: opt(text(1000)),
  device_fingerprint: opt(text(1000)),
  session_id: opt(text(200)),
};

const shopperFields = {
  shopper_id: text(64).min(1),
  shopper_email: email.regex(/^[^\s@]+@[^\s@]+$/, 'must be an email address'),
  shopper_ip: text(50).min(1),
  shopper_phone: opt(text(50)),
  shopper_level: opt(text(50)),
};

/** Fields the direct request shares with the APM request. */
const commonPaymentFields = {
  ...requestIdentity,
  order_no: orderNo,
  currency,
  amount: wireAmount,
  ...amountPartFields,
  website: text(2000).min(1),
  items: text(5000).min(1),
  note: opt(text(1000)),
  ...shopperFields,
  first_name: opt(text(100)),
  last_name: opt(text(100)),
  document: opt(text(100)),
  birth_date: opt(birthDate),
  ...billingFields,
  ...deliveryFields,
  notify_url: opt(url),
  custom: opt(text(2500)),
  device_fingerprint: deviceFields.device_fingerprint,
  platform_source: opt(text(50)),
  device_type: opt(text(50)),
  color_depth: deviceFields.color_depth,
};

/** Card data: never logged, stored or echoed. `card` may be empty when `token_id` is used. */
export const cardFields = {
  card: z.string().regex(/^\d{0,20}$/, 'must be the card number digits (at most 20)'),
  expiration_month: opt(z.string().regex(/^(0[1-9]|1[0-2])$/, 'must be two digits 01-12')),
  expiration_year: opt(z.string().regex(/^(\d{2}|\d{4})$/, 'must be two or four digits')),
  security_code: opt(z.string().regex(/^\d{3,4}$/, 'must be three or four digits')),
};

export const directPaymentFields = {
  ...commonPaymentFields,
  ...deviceFields,
  open3d: opt(text(10)),
  token_flag: opt(text(10)),
  token_id: opt(text(50)),
  ...cardFields,
  challenge_window_size: opt(z.string().regex(/^\d{2}$/, 'must be a two-digit code')),
  installments: opt(text(50)),
  installments_id: opt(text(50)),
  order_type: opt(text(50)),
  checkout_time: opt(unixSeconds),
  antifraud_token_cookie: opt(text(2000)),
  cart_items: opt(z.array(cartItemSchema).max(500)),
  account_owner: opt(z.array(accountOwnerSchema).max(50)),
  total_discount: opt(z.array(totalDiscountSchema).max(50)),
  additional_information: opt(z.array(additionalInformationSchema).max(10)),
  price_id: opt(text(100)),
  quote_id: opt(text(100)),
  quote_price: opt(text(50)),
  subscription: opt(subscriptionSchema),
  storefront_domains: opt(text(2000)),
};

export const directPaymentRequestSchema = z.object(directPaymentFields).superRefine((value, ctx) => {
  if (value.card === '' && (value.token_id ?? '') === '') {
    ctx.addIssue({ code: 'custom', path: ['card'], message: 'is required unless token_id is given' });
  }
});
export type DirectPaymentRequest = z.infer<typeof directPaymentRequestSchema>;

export const apmPaymentFields = {
  ...commonPaymentFields,
  payment_method: text(50).min(1),
  os: deviceFields.os,
  browser: deviceFields.browser,
  browser_lang: deviceFields.browser_lang,
  time_zone: deviceFields.time_zone,
  resolution: deviceFields.resolution,
  cookie_new: deviceFields.cookie_new,
  cookie_old: deviceFields.cookie_old,
  delivery_district_name: opt(text(100)),
  delivery_street_name: opt(text(200)),
  return_url: opt(url),
  bank_code: opt(text(50)),
  person: opt(personSchema),
};

export const apmPaymentRequestSchema = z.object(apmPaymentFields);
export type ApmPaymentRequest = z.infer<typeof apmPaymentRequestSchema>;

/** A form field carries a nested value as JSON text; a JSON body carries it as is. */
const jsonOrForm = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }, schema);

const {
  card: _card, expiration_month: _month, expiration_year: _year, security_code: _cvv, accept: _accept,
  ...directWithoutCard
} = directPaymentFields;

/** The redirect request: direct fields minus card data and `accept`, plus the hosted-page extras. */
export const checkoutFields = {
  ...directWithoutCard,
  website: opt(text(2000)),
  shopper_ip: opt(text(50)),
  return_url: opt(url),
  cancel_url: opt(url),
  default_lang: opt(text(10)),
  card_type: opt(z.string().regex(/^[1-6]$/, 'must be 1-6')),
};

/** Accepts the JSON body of a server-side POST and the string fields of the browser form. */
export const checkoutRequestSchema = z.object({
  ...checkoutFields,
  cart_items: opt(jsonOrForm(directPaymentFields.cart_items)),
  account_owner: opt(jsonOrForm(directPaymentFields.account_owner)),
  total_discount: opt(jsonOrForm(directPaymentFields.total_discount)),
  additional_information: opt(jsonOrForm(directPaymentFields.additional_information)),
  subscription: opt(jsonOrForm(directPaymentFields.subscription)),
});
export type CheckoutRequest = z.infer<typeof checkoutRequestSchema>;
