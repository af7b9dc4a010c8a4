/**
 * The optional parts of a payment beyond the order, the shopper and the addresses, in the kit's
 * terms: risk data (cart items, the shopper's account, coupons, antifraud token), instalments, a
 * quote, an external 3-D Secure result, storefront domains, the APM payer (`person`), a bank, the
 * hosted page's card brand. Money is integer minor units and dates are ISO `YYYY-MM-DD`; this
 * module turns them into the wire's fields, names and formats (gateway-notes: `birth_date` is
 * "two digits, dash, two digits, dash, four digits", read as DD-MM-YYYY).
 *
 * The schemas are what createPayment validates with, so an error names the merchant's field.
 */
import { z } from 'zod';
import { MAX_MINOR_UNITS, toWireAmount } from './money.js';

const minor = z.int('must be a whole number of minor units').min(0).max(MAX_MINOR_UNITS);
const country = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter upper-case country code');
const currency = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter upper-case ISO 4217 code');
const text = (max: number) => z.string().min(1).max(max);
const httpUrl = z.string().max(2000).regex(/^https?:\/\/\S+$/i, 'must be an http(s) URL');
const ip = z.string().max(50).regex(/^[0-9A-Fa-f:.]{2,50}$/, 'must be an IP address');

/** A calendar date as `YYYY-MM-DD` that exists (2001-02-29 does not). */
export const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date YYYY-MM-DD', abort: true }).refine((value) => {
  const [y, m, d] = value.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}, 'is not a real date');

/** The wire's birth date: `YYYY-MM-DD` → `DD-MM-YYYY`. */
export function wireBirthDate(day: string | undefined): string | undefined {
  if (day === undefined) return undefined;
  const [y, m, d] = day.split('-');
  return `${d ?? ''}-${m ?? ''}-${y ?? ''}`;
}

/** One product of the cart, for the gateway's risk screening. */
export const cartItemSchema = z.strictObject({
  name: text(255).optional(),
  quantity: z.int().min(1).max(999_999_999),
  type: text(100).optional(),
  /** Unit price in minor units of the order currency. */
  price: minor.optional(),
  /** Unit price in US cents, when the shop knows it. */
  priceUsd: minor.optional(),
  category: text(255).optional(),
  productId: text(100).optional(),
});
export type CartItem = z.output<typeof cartItemSchema>;

/** The shopper's account at the shop, for risk screening. */
export const accountOwnerSchema = z.strictObject({
  firstName: text(100).optional(),
  lastName: text(100).optional(),
  email: z.email().max(100).optional(),
  accountId: text(100).optional(),
  /** When the account was opened, Unix seconds. */
  createdAt: z.int().min(0).max(99_999_999_999).optional(),
  pastOrdersCount: z.int().min(0).max(1_000_000_000).optional(),
  /** What the shopper spent before, in minor units of the order currency. */
  pastOrdersSum: minor.optional(),
  lastLoginIp: ip.optional(),
  registrationIp: ip.optional(),
});
export type AccountOwner = z.output<typeof accountOwnerSchema>;

export const discountUsedSchema = z.strictObject({
  couponCode: text(100).optional(),
  discountType: text(100).optional(),
});
export type DiscountUsed = z.output<typeof discountUsedSchema>;

/** A 3-D Secure result the shop obtained from its own MPI. */
export const mpiResultSchema = z.strictObject({
  eci: z.string().regex(/^\d{1,2}$/, 'must be one or two digits').optional(),
  cavv: text(100).optional(),
  xid: text(100).optional(),
  dsTransId: text(100).optional(),
});
export type MpiResult = z.output<typeof mpiResultSchema>;

export const quoteSchema = z.strictObject({
  priceId: text(100).optional(),
  quoteId: text(100).optional(),
  quotePrice: text(50).optional(),
});
export type Quote = z.output<typeof quoteSchema>;

export const installmentsSchema = z.strictObject({
  /** The instalment plan (`installments` on the wire), e.g. the number of instalments. */
  plan: text(50),
  /** The gateway's id of the instalment offer (`installments_id`). */
  id: text(50).optional(),
});
export type Installments = z.output<typeof installmentsSchema>;

const bankAccountSchema = z.strictObject({
  accountType: text(50).optional(),
  accountNumber: text(100).optional(),
  branchNumber: text(50).optional(),
  ownerDocumentNumber: text(100).optional(),
  ownerName: text(200).optional(),
  branchCountry: country.optional(),
  currency: currency.optional(),
  bank: z.strictObject({ code: text(50).optional(), name: text(200).optional() }).optional(),
});

/** The payer of an APM as local methods need them (e.g. a tax document number in Brazil). */
export const personSchema = z.strictObject({
  documentNumber: text(100).optional(),
  documentType: text(50).optional(),
  socialName: text(200).optional(),
  email: z.email().max(100).optional(),
  phone: z.strictObject({
    /** The two-letter country of the number. */
    country: country.optional(),
    areaCode: z.string().regex(/^\d{1,10}$/, 'must be digits').optional(),
    number: z.string().regex(/^[\d ]{3,50}$/, 'must be digits').optional(),
  }).optional(),
  birthDate: isoDay.optional(),
  /** Minor units of the order currency. */
  netMonthlyAverageIncome: minor.optional(),
  address: z.strictObject({
    street: text(200).optional(),
    number: text(50).optional(),
    complement: text(200).optional(),
    postalCode: text(50).optional(),
    city: text(100).optional(),
    state: text(100).optional(),
    country: country.optional(),
  }).optional(),
  fiscalCountry: country.optional(),
  documents: z.strictObject({
    fileType: text(100).optional(),
    /** Base64 of the file. */
    fileData: z.string().min(1).max(10_000_000).optional(),
    fileUrl: httpUrl.optional(),
    labels: z.strictObject({
      personBankAccountId: text(100).optional(),
      bankAccount: bankAccountSchema.optional(),
    }).optional(),
  }).optional(),
});
export type Person = z.output<typeof personSchema>;

/** The hosted page's card brands and their `card_type` codes (gateway-notes §6). */
export const HOSTED_CARD_TYPES = { visa: '1', mastercard: '2', jcb: '3', amex: '4', diners: '5', maestro: '6' } as const;
export type HostedCardType = keyof typeof HOSTED_CARD_TYPES;

/** Everything optional a payment may carry besides the order itself. All keys optional. */
export const paymentDetailsShape = {
  installments: installmentsSchema.optional(),
  antifraudTokenCookie: text(2000).optional(),
  cartItems: z.array(cartItemSchema).min(1).max(500).optional(),
  accountOwner: accountOwnerSchema.optional(),
  discountsUsed: z.array(discountUsedSchema).min(1).max(50).optional(),
  mpi: mpiResultSchema.optional(),
  quote: quoteSchema.optional(),
  /** The shop's domains (host names), sent comma-separated. */
  storefrontDomains: z.array(z.string().regex(/^[A-Za-z0-9.-]{1,253}$/, 'must be a host name')).min(1).max(50).optional(),
  person: personSchema.optional(),
  bankCode: text(50).optional(),
  /** The card brand the hosted page takes. */
  cardType: z.enum(Object.keys(HOSTED_CARD_TYPES) as [HostedCardType, ...HostedCardType[]]).optional(),
};
export const paymentDetailsSchema = z.strictObject(paymentDetailsShape);
export type PaymentDetails = z.output<typeof paymentDetailsSchema>;
/** The keys of PaymentDetails, to copy them between the order's data and a request. */
export const PAYMENT_DETAIL_KEYS = Object.keys(paymentDetailsShape) as (keyof PaymentDetails)[];

type Fields = Record<string, unknown>;

/** Drops undefined values and objects left empty, recursively. */
function pruned(value: Fields): Fields | undefined {
  const out: Fields = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || v === '') continue;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const inner = pruned(v as Fields);
      if (inner !== undefined) out[key] = inner;
    } else {
      out[key] = v;
    }
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

const decimalNumber = (amount: number | undefined, code: string, field: string): number | undefined =>
  amount === undefined ? undefined : Number(toWireAmount(amount, code, field));

/** The wire's `person`, from the kit's. */
export function wirePerson(p: Person | undefined, orderCurrency: string): Fields | undefined {
  if (p === undefined) return undefined;
  const account = p.documents?.labels?.bankAccount;
  return pruned({
    document_number: p.documentNumber,
    document_type: p.documentType,
    social_name: p.socialName,
    email: p.email,
    phone_country_code: p.phone?.country,
    phone_area_code: p.phone?.areaCode,
    phone_number: p.phone?.number,
    birth_date: wireBirthDate(p.birthDate),
    net_monthly_average_income: p.netMonthlyAverageIncome === undefined
      ? undefined
      : toWireAmount(p.netMonthlyAverageIncome, orderCurrency, 'person.netMonthlyAverageIncome'),
    address_street: p.address?.street,
    address_number: p.address?.number,
    address_complement: p.address?.complement,
    address_postal_code: p.address?.postalCode,
    address_city: p.address?.city,
    address_state: p.address?.state,
    address_country: p.address?.country,
    fiscal_country: p.fiscalCountry,
    documents: p.documents === undefined ? undefined : {
      file_type: p.documents.fileType,
      file_data: p.documents.fileData,
      file_url: p.documents.fileUrl,
      labels: p.documents.labels === undefined ? undefined : {
        person_bank_account_id: p.documents.labels.personBankAccountId,
        bank_account: account === undefined ? undefined : {
          account_type: account.accountType,
          account_number: account.accountNumber,
          branch_number: account.branchNumber,
          owner_document_number: account.ownerDocumentNumber,
          owner_name: account.ownerName,
          branch_country: account.branchCountry,
          currency: account.currency,
          bank: account.bank,
        },
      },
    },
  });
}

/**
 * The fields the direct and hosted requests take from the details (the APM request takes none
 * of these): risk data, instalments, quote, MPI result and storefront domains.
 */
export function riskDetailFields(d: PaymentDetails | undefined, orderCurrency: string): Fields {
  if (d === undefined) return {};
  const owner = d.accountOwner;
  return {
    installments: d.installments?.plan,
    installments_id: d.installments?.id,
    antifraud_token_cookie: d.antifraudTokenCookie,
    cart_items: d.cartItems?.map((item, i) => ({
      basic_item_data: pruned({
        name: item.name,
        quantity: String(item.quantity),
        type: item.type,
        price: {
          amount_usd: decimalNumber(item.priceUsd, 'USD', `cartItems[${String(i)}].priceUsd`),
          amount_local_currency: decimalNumber(item.price, orderCurrency, `cartItems[${String(i)}].price`),
          currency: item.price === undefined ? undefined : orderCurrency,
        },
        category: item.category,
        productId: item.productId,
      }) ?? {},
    })),
    account_owner: owner === undefined ? undefined : [pruned({
      first_name: owner.firstName,
      last_name: owner.lastName,
      email: owner.email,
      account_id: owner.accountId,
      created: owner.createdAt,
      past_orders_count: owner.pastOrdersCount,
      past_orders_sum: decimalNumber(owner.pastOrdersSum, orderCurrency, 'accountOwner.pastOrdersSum'),
      lastLogin_ip: owner.lastLoginIp,
      registration_ip: owner.registrationIp,
    }) ?? {}],
    total_discount: d.discountsUsed?.map((used) => pruned({ coupon_code_used: used.couponCode, discount_type: used.discountType }) ?? {}),
    additional_information: d.mpi === undefined ? undefined : [{
      mpi_info: pruned({ eci: d.mpi.eci, cavv: d.mpi.cavv, xid: d.mpi.xid, dsTransID: d.mpi.dsTransId }) ?? {},
    }],
    price_id: d.quote?.priceId,
    quote_id: d.quote?.quoteId,
    quote_price: d.quote?.quotePrice,
    storefront_domains: d.storefrontDomains?.join(','),
  };
}

/** The fields only the APM request takes from the details. */
export function apmDetailFields(d: PaymentDetails | undefined, orderCurrency: string): Fields {
  if (d === undefined) return {};
  return { bank_code: d.bankCode, person: wirePerson(d.person, orderCurrency) };
}

/** The hosted page's `card_type`. */
export function hostedCardType(d: PaymentDetails | undefined): string | undefined {
  return d?.cardType === undefined ? undefined : HOSTED_CARD_TYPES[d.cardType];
}
