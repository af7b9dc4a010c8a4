/**
 * What a merchant passes to the payment methods: the wire's snake_case names, except that money
 * is integer minor units, `items` is a LineItem list, and merchant_id, account_id and
 * encryption_data are filled by the client. Unknown fields are refused, so a misspelt field
 * is an error instead of silently missing from the request.
 */
import { z } from 'zod';
import { MAX_MINOR_UNITS } from '../money.js';
import {
  apmPaymentFields, checkoutFields, directPaymentFields, subscriptionSchema,
} from '../schemas/payments.js';

export const minorUnits = z.number().int('must be a whole number of minor units').nonnegative().max(MAX_MINOR_UNITS);

export const lineItemSchema = z.strictObject({
  name: z.string().min(1).max(255),
  sku: z.string().max(100),
  unitPrice: minorUnits,
  quantity: z.number().int().min(1).max(999_999_999),
});

export const MONEY_FIELDS = [
  'amount', 'item_total', 'shipping', 'handling', 'tax_total', 'insurance', 'shipping_discount', 'discount',
] as const;
export type MoneyField = (typeof MONEY_FIELDS)[number];

const moneyInput = {
  amount: minorUnits,
  item_total: minorUnits.optional(),
  shipping: minorUnits.optional(),
  handling: minorUnits.optional(),
  tax_total: minorUnits.optional(),
  insurance: minorUnits.optional(),
  shipping_discount: minorUnits.optional(),
  discount: minorUnits.optional(),
};

const subscriptionInput = z.strictObject({ ...subscriptionSchema.shape, contract_amount: minorUnits.optional() });

const FILLED = ['merchant_id', 'account_id', 'encryption_data'] as const;

function without<S extends Record<string, z.ZodType>, K extends string>(shape: S, keys: readonly K[]): Omit<S, K> {
  const out: Record<string, z.ZodType> = { ...shape };
  for (const key of keys) Reflect.deleteProperty(out, key);
  return out as Omit<S, K>;
}

const inputOverrides = {
  ...moneyInput,
  items: z.array(lineItemSchema).min(1).max(500),
};

const cardRule = (value: { card: string; token_id?: string | undefined }, ctx: z.RefinementCtx): void => {
  if (value.card === '' && (value.token_id ?? '') === '') {
    ctx.addIssue({ code: 'custom', path: ['card'], message: 'is required unless token_id is given' });
  }
};

export const directPaymentInputSchema = z
  .strictObject({
    ...without(directPaymentFields, FILLED),
    ...inputOverrides,
    subscription: subscriptionInput.optional(),
  })
  .superRefine(cardRule);
export type DirectPaymentInput = z.input<typeof directPaymentInputSchema>;

export const apmPaymentInputSchema = z.strictObject({ ...without(apmPaymentFields, FILLED), ...inputOverrides });
export type ApmPaymentInput = z.input<typeof apmPaymentInputSchema>;

export const checkoutInputSchema = z.strictObject({
  ...without(checkoutFields, FILLED),
  ...inputOverrides,
  subscription: subscriptionInput.optional(),
});
export type CheckoutInput = z.input<typeof checkoutInputSchema>;
