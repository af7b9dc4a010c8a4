/**
 * `encryption_data` as gateway-notes §2 describes it: SHA-256 over the chosen values joined with
 * no separator, sign key last, whitespace removed from the values, 64 lower-case hex characters;
 * upper-case hex is accepted. The published formulas and the project's assumed ones are one
 * table, overridable per operation through the sandbox's `recipes` option.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** A field name, or one field of every element of an array, in array order. */
export type RecipeStep = string | { each: string; field: string };
export type Recipe = readonly RecipeStep[];

const eachTransaction = (array: string): Recipe => ['merchant_id', 'account_id', { each: array, field: 'transaction_id' }];

export const RECIPES = {
  // published
  retrievalTrans: ['merchant_id', 'account_id'],
  retrievalRefund: ['merchant_id', 'account_id'],
  refund: eachTransaction('refund_orders'),
  payout: ['merchant_id', 'account_id', 'request_id', 'payment_currency', 'payment_amount'],
  optimise: ['merchant_id', 'account_id', 'request_id', 'currency', 'amount', 'shopper_email'],
  // assumed by the project (gateway-notes §2)
  authorise: ['merchant_id', 'account_id', 'order_no', 'currency', 'amount'],
  checkout: ['merchant_id', 'account_id', 'order_no', 'currency', 'amount'],
  capture: eachTransaction('capture_orders'),
  cancel: eachTransaction('cancel_orders'),
  review: eachTransaction('review_orders'),
  cancelsubscription: ['merchant_id', 'account_id', 'recurring_id'],
  updateOrders: eachTransaction('update_orders'),
  authoriseResponse: ['merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'transaction_id', 'order_status'],
  notification: ['merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'transaction_id', 'order_status'],
} as const satisfies Record<string, Recipe>;

export type SignedMessage = keyof typeof RECIPES;
export type Recipes = Record<SignedMessage, Recipe>;
export const SIGNED_MESSAGES = Object.keys(RECIPES) as SignedMessage[];

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** The string that is hashed before the key: every chosen value, absent ones as ''. */
export function signedText(recipe: Recipe, fields: Readonly<Record<string, unknown>>): string {
  let out = '';
  for (const step of recipe) {
    if (typeof step === 'string') {
      out += text(fields[step]);
      continue;
    }
    const list = fields[step.each];
    if (!Array.isArray(list)) continue;
    for (const element of list as unknown[]) {
      out += typeof element === 'object' && element !== null ? text((element as Record<string, unknown>)[step.field]) : '';
    }
  }
  return out.replace(/\s+/g, '');
}

export function sign(message: SignedMessage, fields: Readonly<Record<string, unknown>>, signKey: string, recipes: Recipes = RECIPES): string {
  return createHash('sha256').update(signedText(recipes[message], fields) + signKey, 'utf8').digest('hex');
}

/** True when `provided` is the signature of `fields` under `signKey`; compared in constant time. */
export function verify(
  message: SignedMessage,
  fields: Readonly<Record<string, unknown>>,
  provided: string,
  signKey: string,
  recipes: Recipes = RECIPES,
): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(provided) || signKey === '') return false;
  const expected = Buffer.from(sign(message, fields, signKey, recipes), 'utf8');
  return timingSafeEqual(expected, Buffer.from(provided.toLowerCase(), 'utf8'));
}
