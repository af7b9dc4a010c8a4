/**
 * The pay route's payment, in the kit's terms: amount, currency, items, shopper, addresses and
 * subscription come only from `order.data` (written by createPayment); the browser contributes
 * the method, the card or APM choice and best-effort device data. The gateway client maps this
 * to wire fields (gateway/payment-request.ts).
 */
import { z } from 'zod';
import { ValidationError } from '../../errors.js';
import { storedSubscriptionPlanSchema, type PaymentDevice, type PaymentMethodChoice, type PaymentRequest } from '../../gateway/payment-request.js';
import type { SavedCardStore } from '../../orders/saved-cards.js';
import { paymentDetailsShape, type PaymentDetails } from '../../gateway/payment-details.js';
import type { Order, PaymentMethodKind } from '../../orders/types.js';
import { merged } from '../../objects.js';
import type { KitContext } from '../context.js';
import type { DeviceData } from '../device.js';
import type { PayBody } from './schema.js';
import { compiled } from '../../zod-compiled.js';

const address = z.object({
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  country: z.string(),
  state: z.string().optional(),
  city: z.string().optional(),
  address: z.string().optional(),
  postalCode: z.string().optional(),
  districtName: z.string().optional(),
  streetName: z.string().optional(),
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
    document: z.string().optional(),
    birthDate: z.string().optional(),
  }),
  billing: address.optional(),
  delivery: address.optional(),
  website: z.string().optional(),
  note: z.string().optional(),
  custom: z.string().optional(),
  /** Minor units; an order stored before that holds the decimal string, still read. */
  subscription: storedSubscriptionPlanSchema.optional(),
  amounts: z.record(z.string(), z.int()).optional(),
  methods: z.array(z.enum(['card', 'apm', 'hosted'])).optional(),
  ...paymentDetailsShape,
});
export type PayOrderData = z.infer<typeof payOrderDataSchema>;

/** The order's data as the pay route needs it; a ValidationError names the broken key. */
export function payOrderData(order: Order): PayOrderData {
  const parsed = compiled(payOrderDataSchema).safeParse(order.data);
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

/** The store's saved cards when this order may use them: a signed-in shopper paying by card. */
export function savedCardsFor(ctx: KitContext, data: PayOrderData): SavedCardStore | null {
  const store = ctx.store.savedCards;
  if (store === undefined || data.shopper.account !== true || data.shopper.id === '') return null;
  return allowedMethods(ctx, data).includes('card') ? store : null;
}

/** The device as the payment request takes it. */
export function paymentDevice(device: DeviceData): PaymentDevice {
  return {
    userAgent: device.user_agent,
    accept: device.accept,
    platformSource: device.platform_source,
    deviceType: device.device_type,
    orderType: device.order_type,
    browser: device,
  };
}

/** A card payment's saved-card part: ask for a token to save, or pay with a saved one. */
export interface SavedCardUse {
  saveCard?: boolean;
  tokenId?: string;
}

/** How the shopper pays, from the parsed form (card data stays in this request only). */
function methodChoice(ctx: KitContext, order: Order, body: PayBody, language: string, saved: SavedCardUse): PaymentMethodChoice {
  if (body.method === 'card') {
    // A literal and then the saved-card keys: on Node 20, each key added after a spread costs about a microsecond.
    const card: Extract<PaymentMethodChoice, { kind: 'card' }> = {
      kind: 'card',
      number: body.card,
      expiryMonth: body.expiration_month,
      expiryYear: body.expiration_year,
      securityCode: body.security_code,
      holder: { firstName: body.first_name, lastName: body.last_name },
      threeDS: ctx.options.threeDS,
      returnUrl: ctx.urls.return(order.id),
    };
    if (saved.saveCard !== undefined) card.saveCard = saved.saveCard;
    if (saved.tokenId !== undefined) card.tokenId = saved.tokenId;
    return card;
  }
  if (body.method === 'apm') return { kind: 'apm', paymentMethod: body.payment_method, returnUrl: ctx.urls.return(order.id) };
  // The hosted page speaks the language of the kit's own pages for this order.
  return { kind: 'hosted', returnUrl: ctx.urls.return(order.id), cancelUrl: ctx.urls.cancel(order.id), threeDS: ctx.options.threeDS, language };
}

/** The order's details, with the payer data the shopper typed for an APM that needs it. */
function paymentDetails(data: PayOrderData, body: PayBody): PaymentDetails {
  const details: PaymentDetails = {};
  for (const key of Object.keys(paymentDetailsShape) as (keyof PaymentDetails)[]) {
    if (data[key] !== undefined) Object.assign(details, { [key]: data[key] });
  }
  if (body.method === 'apm' && body.person !== undefined) details.person = { ...details.person, ...body.person };
  return details;
}

/** The payment to send for this order and form. */
export function paymentRequest(
  ctx: KitContext, order: Order, data: PayOrderData, device: DeviceData, body: PayBody, language: string, saved: SavedCardUse = {},
): PaymentRequest {
  return {
    orderNo: order.orderNo,
    amount: order.amount,
    currency: order.currency,
    items: data.items,
    amounts: data.amounts,
    website: data.website ?? ctx.options.website,
    note: data.note,
    custom: data.custom,
    shopper: merged(data.shopper, { ip: device.shopper_ip }),
    billing: data.billing,
    delivery: data.delivery,
    subscription: data.subscription,
    device: paymentDevice(device),
    notifyUrl: ctx.urls.notify(),
    method: methodChoice(ctx, order, body, language, saved),
    details: paymentDetails(data, body),
  };
}
