/**
 * createPayment: the shop creates the payment server-side. Amount, currency and items come from
 * the shop's data, never from the browser; the shopper only ever sees the pay URL.
 */
import { z } from 'zod';
import { KitError, ValidationError } from '../errors.js';
import { isoDay, PAYMENT_DETAIL_KEYS, paymentDetailsShape } from '../gateway/payment-details.js';
import { amountPartsSchema, orderItemSchema, refineOrderMoney, subscriptionPlanSchema } from '../gateway/payment-request.js';
import { zodIssuesToFields } from '../gateway/schemas/common.js';
import type { Order, PaymentMethodKind } from '../orders/types.js';
import type { KitContext } from './context.js';
import { uuidV7 } from '../uuid-v7.js';

const minor = z.int().min(0).max(Number.MAX_SAFE_INTEGER);
const country = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter upper-case country code');

const addressSchema = z.strictObject({
  firstName: z.string().max(100).optional(),
  lastName: z.string().max(100).optional(),
  country,
  state: z.string().max(100).optional(),
  city: z.string().max(100).optional(),
  address: z.string().max(500).optional(),
  postalCode: z.string().max(20).optional(),
});

/** The delivery address may name its district and street apart (local APMs read them). */
const deliverySchema = addressSchema.extend({
  districtName: z.string().min(1).max(100).optional(),
  streetName: z.string().min(1).max(200).optional(),
});

const shopperSchema = z.strictObject({
  id: z.string().min(1).max(64),
  email: z.email().max(100),
  phone: z.string().max(50).optional(),
  level: z.string().max(50).optional(),
  firstName: z.string().max(100).optional(),
  lastName: z.string().max(100).optional(),
  /** `id` is the shopper's signed-in shop account: offer saving the card and their saved cards. */
  account: z.boolean().optional(),
  /** Personal document number (e.g. a tax id). */
  document: z.string().min(1).max(100).optional(),
  birthDate: isoDay.optional(),
});

export const createPaymentSchema = z.strictObject({
  orderNo: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,49}$/, 'must be 1–50 letters, digits or _ . : / - (starting with a letter or digit)'),
  amount: minor.min(1),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter upper-case ISO 4217 code'),
  items: z.array(orderItemSchema).min(1).max(200),
  shopper: shopperSchema,
  billing: addressSchema.optional(),
  delivery: deliverySchema.optional(),
  /** The gateway's plan fields; `contract_amount` in minor units of `currency`. */
  subscription: subscriptionPlanSchema.optional(),
  note: z.string().max(1000).optional(),
  custom: z.string().max(2500).optional(),
  amounts: amountPartsSchema.optional(),
  methods: z.array(z.enum(['card', 'apm', 'hosted'])).min(1).optional(),
  /** The shopper's language for the kit's pages and the hosted page, e.g. "nl" or "de-AT". */
  locale: z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a language tag like "nl" or "de-AT"').optional(),
  /** Risk data, instalments, quote, APM payer (`person`), bank code, hosted card brand (gateway/payment-details.ts). */
  ...paymentDetailsShape,
}).superRefine(refineOrderMoney);

export type CreatePaymentInput = z.input<typeof createPaymentSchema>;
export interface CreatePaymentResult {
  order: Order;
  /** Where to send the shopper (absolute; carries a signed `pay` token). */
  payUrl: string;
}

function parseInput(input: unknown): z.output<typeof createPaymentSchema> {
  const parsed = createPaymentSchema.safeParse(input);
  if (!parsed.success) {
    throw new ValidationError(zodIssuesToFields(parsed.error).map((i) => ({ field: i.field || '(input)', message: i.message })));
  }
  return parsed.data;
}

/** Creates (or returns, for the same orderNo, amount and currency) an order in state `created`. */
export async function createPayment(ctx: KitContext, input: unknown): Promise<CreatePaymentResult> {
  // One parse: shapes, the items' encoding limits and the amount rules (all in minor units).
  const p = parseInput(input);
  const methods: PaymentMethodKind[] | undefined = p.methods;
  const disabled = methods?.find((m) => !ctx.options.methods.includes(m));
  if (disabled !== undefined) {
    throw new ValidationError([{ field: 'methods', message: `"${disabled}" is not enabled (enabled: ${ctx.options.methods.join(', ')})` }]);
  }

  const data: Record<string, unknown> = { items: p.items, shopper: p.shopper, website: ctx.options.website };
  for (const key of ['billing', 'delivery', 'note', 'custom', 'subscription', 'amounts', 'methods', 'locale'] as const) {
    if (p[key] !== undefined) data[key] = p[key];
  }
  for (const key of PAYMENT_DETAIL_KEYS) {
    if (p[key] !== undefined) data[key] = p[key];
  }

  const existing = await ctx.store.getByOrderNo(p.orderNo);
  const order = existing ?? (await createOrReuse(ctx, p.orderNo, p.amount, p.currency, data));
  if (order.amount !== p.amount || order.currency !== p.currency) {
    throw new KitError('ERR_ORDER_EXISTS', `Order ${p.orderNo} already exists with another amount or currency`, {
      details: { orderNo: p.orderNo, existing: { amount: order.amount, currency: order.currency }, requested: { amount: p.amount, currency: p.currency } },
    });
  }
  return { order, payUrl: ctx.urls.pay(order.id) };
}

async function createOrReuse(ctx: KitContext, orderNo: string, amount: number, currency: string, data: Record<string, unknown>): Promise<Order> {
  try {
    // Time-ordered ids keep today's orders (the ones being paid) on the same index pages.
    return await ctx.store.create({ id: uuidV7(), orderNo, amount, currency, state: 'created', data });
  } catch (err) {
    // Two requests for the same orderNo raced: the loser answers with the winner's order.
    if (err instanceof KitError && err.code === 'ERR_ORDER_EXISTS') {
      const winner = await ctx.store.getByOrderNo(orderNo);
      if (winner) return winner;
    }
    throw err;
  }
}
