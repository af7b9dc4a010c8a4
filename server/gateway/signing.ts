/**
 * `encryption_data`: SHA-256 over field values concatenated with no separator, sign key last,
 * 64 lower-case hex characters. Whitespace is removed from every value before hashing (as the
 * public documentation says). Which fields each operation signs is one table of recipes; the
 * documented ones are used as published and the rest are the project's documented assumptions,
 * each overridable by configuration.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import type { GatewayOperation } from './wire.js';

export type SignedOperation =
  | GatewayOperation
  /** The XML `respon` of authorise (direct or APM). */
  | 'authoriseResponse'
  /** Every notification POSTed to notify_url. */
  | 'notification';

/** A field name, or every element's field of an array, in array order. */
export type RecipePart = string | { each: string; field: string };
export type SignatureRecipe = readonly RecipePart[];
export type RecipeTable = Record<SignedOperation, SignatureRecipe>;

const batch = (array: string): SignatureRecipe => ['merchant_id', 'account_id', { each: array, field: 'transaction_id' }];

export const DEFAULT_RECIPES: RecipeTable = Object.freeze({
  // documented
  retrievalTrans: ['merchant_id', 'account_id'],
  retrievalRefund: ['merchant_id', 'account_id'],
  refund: batch('refund_orders'),
  payout: ['merchant_id', 'account_id', 'request_id', 'payment_currency', 'payment_amount'],
  optimise: ['merchant_id', 'account_id', 'request_id', 'currency', 'amount', 'shopper_email'],
  // assumed (gateway-notes §2), overridable through the `recipes` option
  authorise: ['merchant_id', 'account_id', 'order_no', 'currency', 'amount'],
  checkout: ['merchant_id', 'account_id', 'order_no', 'currency', 'amount'],
  capture: batch('capture_orders'),
  cancel: batch('cancel_orders'),
  review: batch('review_orders'),
  cancelsubscription: ['merchant_id', 'account_id', 'recurring_id'],
  updateOrders: batch('update_orders'),
  authoriseResponse: ['merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'transaction_id', 'order_status'],
  notification: ['merchant_id', 'account_id', 'order_no', 'currency', 'amount', 'transaction_id', 'order_status'],
});

export const SIGNED_OPERATIONS = Object.keys(DEFAULT_RECIPES) as SignedOperation[];

function valueToString(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return '';
}

/** The values a recipe picks from a message, in order; an absent value counts as empty. */
export function recipeValues(recipe: SignatureRecipe, fields: Readonly<Record<string, unknown>>): string[] {
  const values: string[] = [];
  for (const part of recipe) {
    if (typeof part === 'string') {
      values.push(valueToString(fields[part]));
      continue;
    }
    const list = fields[part.each];
    if (Array.isArray(list)) {
      for (const element of list as unknown[]) {
        const record = typeof element === 'object' && element !== null ? (element as Record<string, unknown>) : {};
        values.push(valueToString(record[part.field]));
      }
    }
  }
  return values;
}

const WHITESPACE_RE = /\s+/g;

export function computeSignature(values: readonly string[], signKey: string): string {
  // Whitespace is dropped from every value; dropping it from their concatenation is the same and
  // lets one call into the native hash take the whole message. The one-shot hash (UTF-8, as
  // update() read a string) skips the Hash object: 0.34 against 0.94 µs per signature.
  return hash('sha256', `${values.join('').replace(WHITESPACE_RE, '')}${signKey}`, 'hex');
}

export function signMessage(
  operation: SignedOperation,
  fields: Readonly<Record<string, unknown>>,
  signKey: string,
  recipes: RecipeTable = DEFAULT_RECIPES,
): string {
  return computeSignature(recipeValues(recipes[operation], fields), signKey);
}

/** Constant-time comparison of two hex signatures; upper-case hex from the gateway is accepted. */
export function signaturesEqual(expected: string, provided: string): boolean {
  const a = Buffer.from(expected.toLowerCase(), 'utf8');
  const b = Buffer.from(provided.toLowerCase(), 'utf8');
  if (a.length !== b.length || a.length === 0) {
    // Compare anyway so a wrong length costs the same as a wrong value.
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}

/**
 * True when `provided` matches the signature under any of `signKeys` (key rotation). With no key
 * configured nothing verifies: callers fail closed.
 */
export function verifyMessage(
  operation: SignedOperation,
  fields: Readonly<Record<string, unknown>>,
  provided: string | undefined,
  signKeys: readonly string[],
  recipes: RecipeTable = DEFAULT_RECIPES,
): boolean {
  if (typeof provided !== 'string' || !/^[0-9a-fA-F]{64}$/.test(provided)) return false;
  const values = recipeValues(recipes[operation], fields);
  let ok = false;
  // Check every key (no early exit) so timing does not reveal which key matched.
  for (const key of signKeys) {
    if (key.length === 0) continue;
    if (signaturesEqual(computeSignature(values, key), provided)) ok = true;
  }
  return ok;
}

/** Merges a partial override (from configuration) over the defaults. */
export function resolveRecipes(overrides: Partial<Record<SignedOperation, SignatureRecipe>> = {}): RecipeTable {
  return { ...DEFAULT_RECIPES, ...overrides };
}
