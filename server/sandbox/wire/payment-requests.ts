/**
 * The three payment requests: direct and APM (/v1/authorise) and redirect (/v1/checkout), from
 * the interface's field tables; required fields as gateway-notes §1 lists them; `the service` is
 * `website` on the wire.
 */
import { z } from 'zod';
import { country, currency, decimal, emailAddress, httpUrl, identity, nested, opt, t } from './fields.js';

const subscription = z.object({
  contract: opt(t(200)),
  contract_name: opt(t(200)),
  contract_amount: opt(decimal),
  interval: opt(t(20)),
  interval_count: opt(z.string().regex(/^\d{1,4}$/, 'must be digits')),
  billing_cycle: opt(z.number().int().nonnegative()),
  promotion_cycle: opt(z.number().int().nonnegative()),
  contract_start: opt(t(50)),
  contract_end: opt(t(50)),
  price_id: opt(t(100)),
});

const cartItem = z.object({
  basic_item_data: z.object({
    name: opt(t(255)),
    quantity: opt(z.string().regex(/^\d{1,9}$/, 'must be digits')),
    type: opt(t(100)),
    price: opt(z.object({ amount_usd: opt(z.number()), amount_local_currency: opt(z.number()), currency: opt(currency) })),
    category: opt(t(255)),
    productId: opt(t(100)),
  }),
});

const accountOwner = z.object({
  first_name: opt(t(100)), last_name: opt(t(100)), email: opt(t(100)), account_id: opt(t(100)),
  created: opt(z.number()), past_orders_count: opt(z.number()), past_orders_sum: opt(z.number()),
  lastLogin_ip: opt(t(50)), registration_ip: opt(t(50)),
});

const totalDiscount = z.object({ coupon_code_used: opt(t(100)), discount_type: opt(t(100)) });
const mpi = z.object({ mpi_info: z.object({ eci: opt(t(10)), cavv: opt(t(100)), xid: opt(t(100)), dsTransID: opt(t(100)) }) });

const amounts = {
  currency,
  amount: decimal,
  item_total: opt(decimal), shipping: opt(decimal), handling: opt(decimal), tax_total: opt(decimal),
  insurance: opt(decimal), shipping_discount: opt(decimal), discount: opt(decimal),
};

const places = {
  billing_country: opt(country), billing_state: opt(t(100)), billing_city: opt(t(100)), billing_address: opt(t(500)), billing_postal_code: opt(t(50)),
  delivery_firstname: opt(t(100)), delivery_lastname: opt(t(100)), delivery_country: opt(country), delivery_state: opt(t(100)),
  delivery_city: opt(t(100)), delivery_address: opt(t(500)), delivery_postal_code: opt(t(50)),
};

const device = {
  os: opt(t(100)), browser: opt(t(100)), browser_lang: opt(t(50)), time_zone: opt(t(50)), resolution: opt(t(50)), color_depth: opt(t(10)),
  user_agent: opt(t(1000)), cookie_new: opt(t(1000)), cookie_old: opt(t(1000)), device_fingerprint: opt(t(1000)), session_id: opt(t(200)),
  platform_source: opt(t(50)), device_type: opt(t(50)), order_type: opt(t(50)),
};

const order = {
  ...identity,
  order_no: z.string().min(1).max(50),
  ...amounts,
  website: t(2000).min(1),
  items: t(5000).min(1),
  note: opt(t(1000)),
  shopper_id: t(64).min(1),
  shopper_email: emailAddress,
  shopper_ip: t(50).min(1),
  shopper_phone: opt(t(50)),
  shopper_level: opt(t(50)),
  first_name: opt(t(100)),
  last_name: opt(t(100)),
  document: opt(t(100)),
  birth_date: opt(z.string().regex(/^\d{2}-\d{2}-\d{4}$/, 'must be two digits, dash, two digits, dash, four digits')),
  ...places,
  ...device,
  notify_url: opt(httpUrl),
  custom: opt(t(2500)),
};

const paymentExtras = {
  open3d: opt(t(10)),
  token_flag: opt(t(10)),
  token_id: opt(t(50)),
  challenge_window_size: opt(z.string().regex(/^\d{2}$/, 'must be a two-digit code')),
  installments: opt(t(50)),
  installments_id: opt(t(50)),
  checkout_time: opt(z.union([z.number().int().nonnegative(), z.string().regex(/^\d{1,12}$/, 'must be Unix seconds')])),
  antifraud_token_cookie: opt(t(2000)),
  cart_items: opt(nested(z.array(cartItem).max(500))),
  account_owner: opt(nested(z.array(accountOwner).max(50))),
  total_discount: opt(nested(z.array(totalDiscount).max(50))),
  additional_information: opt(nested(z.array(mpi).max(10))),
  price_id: opt(t(100)),
  quote_id: opt(t(100)),
  quote_price: opt(t(50)),
  subscription: opt(nested(subscription)),
  storefront_domains: opt(t(2000)),
};

export const directRequest = z
  .object({
    ...order,
    ...paymentExtras,
    accept: opt(t(1000)),
    card: z.string().regex(/^[\d\s-]{0,23}$/, 'must be the card number digits'),
    expiration_month: opt(t(2)),
    expiration_year: opt(t(4)),
    security_code: opt(t(4)),
  })
  .superRefine((value, ctx) => {
    if (value.card === '' && (value.token_id ?? '') === '') ctx.addIssue({ code: 'custom', path: ['card'], message: 'is required unless token_id is given' });
  });
export type DirectRequest = z.infer<typeof directRequest>;

const bankAccount = z.object({
  account_type: opt(t(50)), account_number: opt(t(100)), branch_number: opt(t(50)), owner_document_number: opt(t(100)),
  owner_name: opt(t(200)), branch_country: opt(country), currency: opt(currency), bank: opt(z.object({ code: opt(t(50)), name: opt(t(200)) })),
});

const person = z.object({
  document_number: opt(t(100)), document_type: opt(t(50)), social_name: opt(t(200)), email: opt(t(100)),
  phone_country_code: opt(country), phone_area_code: opt(t(10)), phone_number: opt(t(50)),
  birth_date: opt(z.string().regex(/^\d{2}-\d{2}-\d{4}$/, 'must be two digits, dash, two digits, dash, four digits')),
  net_monthly_average_income: opt(t(20)), address_street: opt(t(200)), address_number: opt(t(50)), address_complement: opt(t(200)),
  address_postal_code: opt(t(50)), address_city: opt(t(100)), address_state: opt(t(100)), address_country: opt(country), fiscal_country: opt(country),
  documents: opt(z.object({
    file_type: opt(t(100)), file_data: opt(z.string()), file_url: opt(httpUrl),
    labels: opt(z.object({ person_bank_account_id: opt(t(100)), bank_account: opt(bankAccount) })),
  })),
});

export const apmRequest = z.object({
  ...order,
  payment_method: t(50).min(1),
  delivery_district_name: opt(t(100)),
  delivery_street_name: opt(t(200)),
  return_url: opt(httpUrl),
  bank_code: opt(t(50)),
  person: opt(nested(person)),
});
export type ApmRequest = z.infer<typeof apmRequest>;

/** The direct fields minus card data and `accept`; website and shopper_ip are not required here. */
export const checkoutRequest = z.object({
  ...order,
  ...paymentExtras,
  website: opt(t(2000)),
  shopper_ip: opt(t(50)),
  return_url: opt(httpUrl),
  cancel_url: opt(httpUrl),
  default_lang: opt(t(10)),
  card_type: opt(z.string().regex(/^[1-6]$/, 'must be 1-6')),
});
export type CheckoutRequest = z.infer<typeof checkoutRequest>;
