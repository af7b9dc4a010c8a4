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

const directShape = { ...without(directPaymentFields, FILLED), ...inputOverrides, subscription: subscriptionInput.optional() };
const apmShape = { ...without(apmPaymentFields, FILLED), ...inputOverrides };
const checkoutShape = { ...without(checkoutFields, FILLED), ...inputOverrides, subscription: subscriptionInput.optional() };

export const directPaymentInputSchema = z.strictObject(directShape).superRefine(cardRule);
export type DirectPaymentInput = z.input<typeof directPaymentInputSchema>;

export const apmPaymentInputSchema = z.strictObject(apmShape);
export type ApmPaymentInput = z.input<typeof apmPaymentInputSchema>;

export const checkoutInputSchema = z.strictObject(checkoutShape);
export type CheckoutInput = z.input<typeof checkoutInputSchema>;

/**
 * Key sets kept per input kind: a shop's payments fill a handful (with or without a billing
 * address, a phone…). Past this many, inputs get the whole schema, so a caller sending ever new
 * key sets costs time, never memory.
 */
const KEY_SETS_KEPT = 16;

/**
 * The schema that checks an input: its kind's strict schema cut to the keys the input has plus
 * the required ones, built once per key set. zod runs every key of a shape, present or not, and
 * these shapes have ~70 keys of which a payment fills ~30 (the hosted request's check went from a
 * median 49 to 41 µs on the render route). The cut schema gives the same issues and the same
 * output: each key keeps its own schema, absent optional keys add nothing either way, and the
 * kind's refinement still runs. An input with a key the kind does not know, or any other shape
 * than a plain object, gets the whole schema, whose strictness and type check report it.
 */
function keyedSchemas(
  whole: z.ZodType,
  shape: Record<string, z.ZodType>,
  refine?: (value: never, ctx: z.RefinementCtx) => void,
): (input: unknown) => z.ZodType {
  const build = (part: Record<string, z.ZodType>): z.ZodType => {
    const object = z.strictObject(part);
    return refine === undefined ? object : object.superRefine(refine as (value: unknown, ctx: z.RefinementCtx) => void);
  };
  const keys = Object.keys(shape);
  const required = new Set(keys.filter((key) => !(shape[key]?.safeParse(undefined).success ?? false)));
  const cut = new Map<string, z.ZodType>();
  return (input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return whole;
    const present = Object.keys(input);
    if (!present.every((key) => Object.hasOwn(shape, key))) return whole;
    const id = present.join(',');
    const known = cut.get(id);
    if (known !== undefined) return known;
    if (cut.size >= KEY_SETS_KEPT) return whole;
    const wanted = new Set(present);
    const part: Record<string, z.ZodType> = {};
    for (const key of keys) {
      const schema = shape[key];
      if (schema !== undefined && (wanted.has(key) || required.has(key))) part[key] = schema;
    }
    const schema = build(part);
    cut.set(id, schema);
    return schema;
  };
}

/** The checking schema for a direct card payment's input (see keyedSchemas). */
export const directPaymentInputFor = keyedSchemas(directPaymentInputSchema, directShape, cardRule);
/** The checking schema for an APM payment's input. */
export const apmPaymentInputFor = keyedSchemas(apmPaymentInputSchema, apmShape);
/** The checking schema for a hosted-page request's input. */
export const checkoutInputFor = keyedSchemas(checkoutInputSchema, checkoutShape);
