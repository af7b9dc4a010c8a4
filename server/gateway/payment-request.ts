/**
 * A payment in the kit's own terms — an order in minor units, the shopper, the device, the
 * return and notify URLs and how the shopper pays — mapped to the wire fields of the three
 * payment requests (direct card and APM to /v1/authorise, the hosted page to /v1/checkout).
 * This is the one place that knows which wire field carries which part of a payment; the
 * checkout builds a `PaymentRequest` and never names a wire field.
 *
 * Optional values that are undefined or empty are left out, so an optional field never fails
 * the client's format checks. New optional fields (a stored-card `token_id`/`token_flag`, …)
 * go in `PaymentRequest` and in `mapPaymentRequest`, nowhere else.
 */
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { encodedItemsLength, ITEMS_MAX_LENGTH, itemsTotal, ITEM_SEPARATORS, type LineItem } from './items.js';
import { checkAmountComponents, currencyExponent, MAX_MINOR_UNITS, parseWireAmount } from './money.js';
import type { ApmPaymentInput, CheckoutInput, DirectPaymentInput } from './operations/payment-inputs.js';
import type { OptimiseInput } from './operations/optimise.js';
import { apmDetailFields, hostedCardType, riskDetailFields, wireBirthDate, type PaymentDetails } from './payment-details.js';

const minor = z.int('must be a whole number of minor units').min(0).max(MAX_MINOR_UNITS);
const wireText = z.union([z.string().max(200), z.number()]);
const free = (value: string): boolean => !ITEM_SEPARATORS.some((separator) => value.includes(separator));
const SEPARATOR_MESSAGE = `must not contain "${ITEM_SEPARATORS.join('" or "')}"`;

/**
 * A subscription plan: the gateway's plan fields, `contract_amount` in integer minor units of
 * the order currency (converted to the wire's decimal only when the request is built).
 */
export const subscriptionPlanSchema = z.strictObject({
  contract: wireText.optional(),
  contract_name: z.string().min(1).max(200),
  contract_amount: minor,
  interval: z.string().min(1).max(20),
  interval_count: wireText,
  billing_cycle: z.int().min(0).optional(),
  promotion_cycle: z.int().min(0).optional(),
  contract_start: z.string().max(30).optional(),
  contract_end: z.string().max(30).optional(),
  price_id: z.string().max(100).optional(),
});
export type SubscriptionPlan = z.output<typeof subscriptionPlanSchema>;

/** A plan as read back from an order: orders stored before plans were in minor units hold a decimal string. */
export const storedSubscriptionPlanSchema = z.looseObject({
  ...subscriptionPlanSchema.partial().shape,
  contract_amount: z.union([minor, z.string()]).optional(),
});
export type StoredSubscriptionPlan = z.output<typeof storedSubscriptionPlanSchema>;

/** The order's money parts besides `amount`, in minor units (the gateway's names). */
export const amountPartsSchema = z.strictObject({
  item_total: minor.optional(),
  shipping: minor.optional(),
  handling: minor.optional(),
  tax_total: minor.optional(),
  insurance: minor.optional(),
  shipping_discount: minor.optional(),
  discount: minor.optional(),
});
export type AmountParts = z.output<typeof amountPartsSchema>;

export interface PaymentAddress {
  firstName?: string | undefined;
  lastName?: string | undefined;
  country: string;
  state?: string | undefined;
  city?: string | undefined;
  address?: string | undefined;
  postalCode?: string | undefined;
  /** District and street name, which only the APM request carries (delivery address only). */
  districtName?: string | undefined;
  streetName?: string | undefined;
}

export interface PaymentShopper {
  id: string;
  email: string;
  /** The shopper's IP address as the shop saw it. */
  ip: string;
  phone?: string | undefined;
  level?: string | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
  /** Personal document number. */
  document?: string | undefined;
  /** `YYYY-MM-DD`; the wire's format is made here. */
  birthDate?: string | undefined;
}

/**
 * Browser and device data for risk and 3-D Secure. The browser's fields are named as the pay
 * page posts them, which are the names the interface gives them.
 */
export interface PaymentDevice {
  userAgent?: string | undefined;
  accept?: string | undefined;
  platformSource?: string | undefined;
  deviceType?: string | undefined;
  orderType?: string | undefined;
  browser?: Partial<Record<BrowserFieldName, string>> | undefined;
}

/** The browser fields the pay page collects (the interface's names). */
export const BROWSER_FIELD_NAMES = [
  'os', 'browser', 'browser_lang', 'time_zone', 'resolution', 'color_depth', 'cookie_new', 'cookie_old',
  'device_fingerprint', 'session_id', 'challenge_window_size',
] as const;
export type BrowserFieldName = (typeof BROWSER_FIELD_NAMES)[number];

/** How the shopper pays: a card typed on the kit's page, an APM, or the gateway's hosted page. */
export type PaymentMethodChoice =
  | {
      kind: 'card';
      number: string;
      expiryMonth: string;
      expiryYear: string;
      securityCode: string;
      holder: { firstName: string; lastName: string };
      threeDS: 'do3DS' | 'no3DS';
      /** Where the issuer sends the shopper back after a 3-D Secure challenge. */
      returnUrl: string;
      /** Ask the gateway for a stored-card token (`token_flag=YES`) to save the card. */
      saveCard?: boolean | undefined;
      /** Pay with a saved card's token instead of card data (`number` and the rest empty). */
      tokenId?: string | undefined;
    }
  | { kind: 'apm'; paymentMethod: string; returnUrl: string }
  | { kind: 'hosted'; returnUrl: string; cancelUrl: string; threeDS: 'do3DS' | 'no3DS'; language?: string | undefined };

export interface PaymentRequest {
  orderNo: string;
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
  items: LineItem[];
  amounts?: AmountParts | undefined;
  website: string;
  note?: string | undefined;
  custom?: string | undefined;
  shopper: PaymentShopper;
  billing?: PaymentAddress | undefined;
  delivery?: PaymentAddress | undefined;
  subscription?: StoredSubscriptionPlan | undefined;
  device: PaymentDevice;
  notifyUrl: string;
  method: PaymentMethodChoice;
  /** Unix seconds the shopper checked out; default now. */
  checkoutTime?: number | undefined;
  /** Risk data, instalments, quote, APM payer and the like; each request takes the fields it has. */
  details?: PaymentDetails | undefined;
}

type Fields = Record<string, unknown>;

/**
 * Copies the values of each part that are neither undefined nor empty into one object. Plain
 * assignments: spreading and filtering dozens of keys per payment cost more than the rest of the build.
 */
function compact(...parts: (Fields | undefined)[]): Fields {
  const out: Fields = {};
  for (const part of parts) {
    if (part === undefined) continue;
    for (const key of Object.keys(part)) {
      const value = part[key];
      if (value !== undefined && value !== '') out[key] = value;
    }
  }
  return out;
}

/** The plan as the client's input takes it: contract_amount in minor units, counts as text. */
export function subscriptionInput(plan: StoredSubscriptionPlan | undefined, currency: string): Fields | undefined {
  if (plan === undefined) return undefined;
  const out: Fields = {};
  for (const [key, value] of Object.entries(plan)) {
    if (value === undefined) continue;
    if (key === 'contract_amount' && typeof value === 'string') out[key] = parseWireAmount(value, currency, 'subscription.contract_amount');
    else if ((key === 'contract' || key === 'interval_count') && typeof value === 'number') out[key] = String(value);
    else out[key] = value;
  }
  return out;
}

/** Fields every payment request shares. */
function commonFields(r: PaymentRequest): Fields {
  const { billing, delivery, shopper, device } = r;
  const browser = device.browser ?? {};
  return {
    order_no: r.orderNo,
    currency: r.currency,
    amount: r.amount,
    website: r.website,
    items: r.items,
    note: r.note,
    custom: r.custom,
    shopper_id: shopper.id,
    shopper_email: shopper.email,
    shopper_ip: shopper.ip,
    shopper_phone: shopper.phone,
    shopper_level: shopper.level,
    document: shopper.document,
    birth_date: wireBirthDate(shopper.birthDate),
    billing_country: billing?.country,
    billing_state: billing?.state,
    billing_city: billing?.city,
    billing_address: billing?.address,
    billing_postal_code: billing?.postalCode,
    delivery_firstname: delivery?.firstName,
    delivery_lastname: delivery?.lastName,
    delivery_country: delivery?.country,
    delivery_state: delivery?.state,
    delivery_city: delivery?.city,
    delivery_address: delivery?.address,
    delivery_postal_code: delivery?.postalCode,
    notify_url: r.notifyUrl,
    platform_source: device.platformSource,
    device_type: device.deviceType,
    device_fingerprint: browser.device_fingerprint,
    color_depth: browser.color_depth,
    os: browser.os,
    browser: browser.browser,
    browser_lang: browser.browser_lang,
    time_zone: browser.time_zone,
    resolution: browser.resolution,
    cookie_new: browser.cookie_new,
    cookie_old: browser.cookie_old,
  };
}

/** Browser fields the direct and hosted requests carry but the APM request does not. */
function extendedDeviceFields(device: PaymentDevice): Fields {
  return {
    user_agent: device.userAgent,
    session_id: device.browser?.session_id,
    challenge_window_size: device.browser?.challenge_window_size,
    order_type: device.orderType,
  };
}

/** The cardholder's name where the shopper types none: the shopper's, else the billing address's. */
function holderName(r: PaymentRequest): Fields {
  return {
    first_name: r.shopper.firstName ?? r.billing?.firstName,
    last_name: r.shopper.lastName ?? r.billing?.lastName,
  };
}

export type MappedPayment =
  | { kind: 'card'; input: DirectPaymentInput }
  | { kind: 'apm'; input: ApmPaymentInput }
  | { kind: 'hosted'; input: CheckoutInput };

/**
 * The client's input for one payment (wire names, money still in minor units). The client's
 * input schemas then check every field and turn money into the wire's decimals.
 */
export function mapPaymentRequest(r: PaymentRequest): MappedPayment {
  const m = r.method;
  const checkoutTime = r.checkoutTime ?? Math.floor(Date.now() / 1000);
  if (m.kind === 'card') {
    const input = compact(commonFields(r), r.amounts, extendedDeviceFields(r.device), {
      accept: r.device.accept,
      first_name: m.holder.firstName,
      last_name: m.holder.lastName,
      card: m.number,
      expiration_month: m.expiryMonth,
      expiration_year: m.expiryYear,
      security_code: m.securityCode,
      open3d: m.threeDS,
      subscription: subscriptionInput(r.subscription, r.currency),
      checkout_time: checkoutTime,
      token_flag: m.saveCard === true ? 'YES' : undefined,
      token_id: m.tokenId,
    }, riskDetailFields(r.details, r.currency));
    // The interface sends `card` even when a token pays (empty then), so it is never left out.
    input.card = m.number;
    return { kind: 'card', input: input as DirectPaymentInput };
  }
  if (m.kind === 'apm') {
    const input = compact(commonFields(r), r.amounts, holderName(r), {
      payment_method: m.paymentMethod,
      return_url: m.returnUrl,
      delivery_district_name: r.delivery?.districtName,
      delivery_street_name: r.delivery?.streetName,
    }, apmDetailFields(r.details, r.currency));
    return { kind: 'apm', input: input as ApmPaymentInput };
  }
  const input = compact(commonFields(r), r.amounts, extendedDeviceFields(r.device), holderName(r), {
    open3d: m.threeDS,
    subscription: subscriptionInput(r.subscription, r.currency),
    checkout_time: checkoutTime,
    return_url: m.returnUrl,
    cancel_url: m.cancelUrl,
    default_lang: m.language,
    card_type: hostedCardType(r.details),
  }, riskDetailFields(r.details, r.currency));
  return { kind: 'hosted', input: input as CheckoutInput };
}

/** What the shopper's browser posts to the issuer URL when a card payment needs a challenge. */
export function challengeFields(r: PaymentRequest): Record<string, string> {
  const returnUrl = r.method.kind === 'card' ? r.method.returnUrl : '';
  return { return_url: returnUrl, notify_url: r.notifyUrl };
}

/** Who the payment-method ranking is for. */
export interface MethodsQuery {
  amount: number;
  currency: string;
  shopper: Pick<PaymentShopper, 'id' | 'email' | 'ip' | 'level'>;
  country?: string | undefined;
  platform: 'WEB' | 'MOBILE';
}

/** The optimise operation's input for one shopper and order. */
export function optimiseInput(q: MethodsQuery): OptimiseInput {
  return compact({
    amount: q.amount,
    currency: q.currency,
    shopper_id: q.shopper.id,
    shopper_email: q.shopper.email,
    shopper_ip: q.shopper.ip.slice(0, 50),
    shopper_country: q.country,
    shopper_level: q.shopper.level,
    platform: q.platform,
  }) as OptimiseInput;
}

/** A line item of an order: price in minor units; name and sku free of the items codec's separators. */
export const orderItemSchema = z.strictObject({
  name: z.string().min(1).max(200).refine(free, SEPARATOR_MESSAGE),
  sku: z.string().max(100).refine(free, SEPARATOR_MESSAGE),
  unitPrice: minor,
  quantity: z.int().min(1).max(1_000_000),
});

/**
 * The order-level rules, as a zod refinement of an object holding amount, currency, items and
 * amounts (all minor units): the items fit the gateway's `items` field, and they add up to the
 * amount unless the parts are given, in which case the parts add up to it.
 */
export function refineOrderMoney(
  order: { amount: number; currency: string; items: LineItem[]; amounts?: AmountParts | undefined },
  ctx: z.RefinementCtx,
): void {
  const length = encodedItemsLength(order.items, currencyExponent(order.currency));
  if (length > ITEMS_MAX_LENGTH) {
    ctx.addIssue({ code: 'custom', path: ['items'], message: `encodes to ${length} characters; the gateway allows ${ITEMS_MAX_LENGTH}` });
  }
  const parts = order.amounts;
  if (parts === undefined) {
    const total = itemsTotal(order.items);
    if (total !== order.amount) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: `must equal the items total (${String(total)}) unless amounts are given` });
    }
    return;
  }
  try {
    checkAmountComponents({ ...parts, amount: order.amount });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    ctx.addIssue({ code: 'custom', path: ['amount'], message: error.issues[0]?.message ?? 'does not add up' });
  }
}
