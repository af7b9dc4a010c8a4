/**
 * Builds the gateway requests of the pay route from the stored order. Amount, currency, items,
 * shopper, addresses and subscription come only from `order.data` (written by createPayment);
 * the browser contributes the method, the card or APM choice and best-effort device data.
 * Empty values are left out, so optional fields never fail the client's format checks.
 */
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import type { ApmPaymentInput, CheckoutInput, DirectPaymentInput } from '../gateway/operations/payment-inputs.js';
import type { LineItem } from '../gateway/items.js';
import { parseWireAmount } from '../gateway/money.js';
import type { Order, PaymentMethodKind } from '../orders/types.js';
import type { KitContext } from './context.js';
import type { DeviceData } from './device.js';
import type { ApmPayBody, CardPayBody } from './pay-schema.js';

const address = z.object({
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  country: z.string(),
  state: z.string().optional(),
  city: z.string().optional(),
  address: z.string().optional(),
  postalCode: z.string().optional(),
});

/** What the pay route reads from `order.data`; unknown keys (results, timestamps) are ignored. */
export const payOrderDataSchema = z.object({
  items: z.array(z.object({ name: z.string(), sku: z.string(), unitPrice: z.int(), quantity: z.int() })).min(1),
  shopper: z.object({
    id: z.string(),
    email: z.string(),
    phone: z.string().optional(),
    level: z.string().optional(),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    /** True when `id` is a signed-in shop account: only then are cards saved and offered. */
    account: z.boolean().optional(),
  }),
  billing: address.optional(),
  delivery: address.optional(),
  website: z.string().optional(),
  note: z.string().optional(),
  custom: z.string().optional(),
  subscription: z.record(z.string(), z.unknown()).optional(),
  amounts: z.record(z.string(), z.int()).optional(),
  methods: z.array(z.enum(['card', 'apm', 'hosted'])).optional(),
});
export type PayOrderData = z.infer<typeof payOrderDataSchema>;

/** The order's data as the pay route needs it; a ValidationError names the broken key. */
export function payOrderData(order: Order): PayOrderData {
  const parsed = payOrderDataSchema.safeParse(order.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError([{ field: `order.data.${issue?.path.join('.') ?? ''}`, message: issue?.message ?? 'invalid' }]);
  }
  return parsed.data;
}

/** Methods this order may use: in the order's own order when it lists them, else the kit's default first. */
export function allowedMethods(ctx: KitContext, data: Pick<PayOrderData, 'methods'>): PaymentMethodKind[] {
  if (data.methods !== undefined) return [...new Set(data.methods)].filter((m) => ctx.options.methods.includes(m));
  const enabled = ctx.options.methods;
  const first = enabled.includes(ctx.options.defaultMethod) ? [ctx.options.defaultMethod] : [];
  return [...first, ...enabled.filter((m) => m !== ctx.options.defaultMethod)];
}

type Fields = Record<string, unknown>;

/**
 * The stored subscription is in wire shape (contract_amount a decimal string, counts possibly
 * numbers); the client takes contract_amount in minor units and text fields as strings.
 */
export function subscriptionInput(subscription: Record<string, unknown> | undefined, currency: string): Fields | undefined {
  if (subscription === undefined) return undefined;
  const out: Fields = {};
  for (const [key, value] of Object.entries(subscription)) {
    if (value === undefined) continue;
    if (key === 'contract_amount' && typeof value === 'string') out[key] = parseWireAmount(value, currency, 'subscription.contract_amount');
    else if ((key === 'contract' || key === 'interval_count') && typeof value === 'number') out[key] = String(value);
    else out[key] = value;
  }
  return out;
}

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

/** Fields every payment request shares (wire names, money in minor units). */
function commonFields(ctx: KitContext, order: Order, data: PayOrderData, device: DeviceData): Fields {
  const { billing, delivery, shopper } = data;
  return {
    order_no: order.orderNo,
    currency: order.currency,
    amount: order.amount,
    website: data.website ?? ctx.options.website,
    items: data.items satisfies LineItem[],
    note: data.note,
    custom: data.custom,
    shopper_id: shopper.id,
    shopper_email: shopper.email,
    shopper_ip: device.shopper_ip,
    shopper_phone: shopper.phone,
    shopper_level: shopper.level,
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
    notify_url: ctx.urls.notify(),
    platform_source: device.platform_source,
    device_type: device.device_type,
    device_fingerprint: device.device_fingerprint,
    color_depth: device.color_depth,
    os: device.os,
    browser: device.browser,
    browser_lang: device.browser_lang,
    time_zone: device.time_zone,
    resolution: device.resolution,
    cookie_new: device.cookie_new,
    cookie_old: device.cookie_old,
  };
}

/** Browser fields the direct and hosted requests carry but the APM request does not. */
function extendedDeviceFields(device: DeviceData): Fields {
  return {
    user_agent: device.user_agent,
    session_id: device.session_id,
    challenge_window_size: device.challenge_window_size,
    order_type: device.order_type,
  };
}

/** The cardholder's name for methods where the shopper types none. */
function holderName(data: PayOrderData): { first_name: string | undefined; last_name: string | undefined } {
  return {
    first_name: data.shopper.firstName ?? data.billing?.firstName,
    last_name: data.shopper.lastName ?? data.billing?.lastName,
  };
}

export function directRequest(ctx: KitContext, order: Order, data: PayOrderData, device: DeviceData, body: CardPayBody): DirectPaymentInput {
  return compact(commonFields(ctx, order, data, device), data.amounts, extendedDeviceFields(device), {
    accept: device.accept,
    first_name: body.first_name,
    last_name: body.last_name,
    card: body.card,
    expiration_month: body.expiration_month,
    expiration_year: body.expiration_year,
    security_code: body.security_code,
    open3d: ctx.options.threeDS,
    subscription: subscriptionInput(data.subscription, order.currency),
    checkout_time: Math.floor(Date.now() / 1000),
  }) as DirectPaymentInput;
}

export function apmRequest(ctx: KitContext, order: Order, data: PayOrderData, device: DeviceData, body: ApmPayBody): ApmPaymentInput {
  return compact(commonFields(ctx, order, data, device), data.amounts, holderName(data), {
    payment_method: body.payment_method,
    return_url: ctx.urls.return(order.id),
  }) as ApmPaymentInput;
}

export function checkoutRequest(ctx: KitContext, order: Order, data: PayOrderData, device: DeviceData, defaultLang?: string): CheckoutInput {
  return compact(commonFields(ctx, order, data, device), data.amounts, extendedDeviceFields(device), holderName(data), {
    open3d: ctx.options.threeDS,
    subscription: subscriptionInput(data.subscription, order.currency),
    checkout_time: Math.floor(Date.now() / 1000),
    return_url: ctx.urls.return(order.id),
    cancel_url: ctx.urls.cancel(order.id),
    // The hosted page speaks the language of the kit's own pages for this order.
    default_lang: defaultLang,
  }) as CheckoutInput;
}
