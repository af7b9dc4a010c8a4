/**
 * The client checks a payment input with its kind's schema cut to the keys the input has (plus
 * the required ones). That is only a speed-up if the cut schema decides exactly as the whole
 * one: the same success, the same output, the same issues, for valid and invalid inputs alike.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  apmPaymentInputFor, apmPaymentInputSchema, checkoutInputFor, checkoutInputSchema, directPaymentInputFor, directPaymentInputSchema,
} from '../../../server/gateway/operations/payment-inputs.js';

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
/** A value of any kind: right for some keys, wrong for others. */
const anything = fc.oneof(fc.string({ maxLength: 30 }), fc.integer({ min: -5, max: 10 ** 6 }), fc.constant(''), fc.constant(null), fc.boolean());

/** Each key's values, right and wrong. */
const VALUES: Record<string, fc.Arbitrary<unknown>> = {
  order_no: fc.oneof(fc.stringMatching(/^[A-Za-z0-9-]{1,50}$/), anything),
  currency: fc.oneof(fc.constantFrom('USD', 'EUR', 'JPY'), anything),
  amount: fc.oneof(fc.integer({ min: 0, max: 10 ** 9 }), anything),
  shipping: fc.oneof(fc.integer({ min: 0, max: 10 ** 6 }), anything, fc.constant(undefined)),
  website: fc.string({ maxLength: 40 }),
  items: fc.oneof(
    fc.array(fc.record({ name: fc.string({ minLength: 1, maxLength: 20 }), sku: fc.string({ maxLength: 10 }), unitPrice: fc.nat(10 ** 6), quantity: fc.integer({ min: 0, max: 5 }) }), { maxLength: 3 }),
    anything,
  ),
  shopper_id: fc.oneof(fc.string({ minLength: 1, maxLength: 64 }), anything),
  shopper_email: fc.oneof(fc.emailAddress().filter((e) => e.length <= 100), anything),
  shopper_ip: fc.oneof(fc.ipV4(), anything),
  billing_country: fc.oneof(fc.constantFrom('NL', 'US'), anything),
  notify_url: fc.oneof(fc.constant('https://shop.example/notify'), anything),
  card: fc.oneof(fc.stringMatching(/^\d{12,19}$/), fc.constant(''), anything),
  token_id: fc.oneof(fc.string({ maxLength: 50 }), anything),
  expiration_month: fc.oneof(fc.constantFrom('01', '12', '13'), anything),
  payment_method: fc.oneof(fc.string({ minLength: 1, maxLength: 50 }), anything),
  return_url: fc.oneof(fc.constant('https://shop.example/return'), anything),
  checkout_time: fc.oneof(fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }), anything),
  subscription: fc.oneof(fc.record({ contract_amount: optional(fc.nat(10 ** 6)), interval: optional(fc.constantFrom('day', 'month')) }), anything),
  not_a_field: anything,
};
const BASE = ['order_no', 'currency', 'amount', 'items', 'website', 'shopper_id', 'shopper_email', 'shopper_ip'];
/** A few key sets, as a shop's payments have: each is met many times, so its cut schema is used again. */
const KEY_SETS: string[][] = [
  BASE,
  [...BASE, 'billing_country', 'notify_url', 'checkout_time'],
  [...BASE, 'card', 'expiration_month'],
  [...BASE, 'card', 'token_id', 'shipping'],
  [...BASE, 'payment_method', 'return_url'],
  [...BASE, 'subscription', 'return_url'],
  ['order_no', 'amount', 'card'],
  [...BASE, 'not_a_field'],
];
const input = fc.constantFrom(...KEY_SETS).chain((keys) =>
  fc.record(Object.fromEntries(keys.map((key) => [key, VALUES[key] ?? anything]))),
);

/** What a parse decides, in comparable form. */
function decision(schema: z.ZodType, value: unknown): unknown {
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, issues: parsed.error.issues.map((i) => ({ path: i.path, code: i.code, message: i.message })) };
}

describe('payment input schemas cut to the keys present', () => {
  const kinds = [
    ['card', directPaymentInputSchema, directPaymentInputFor],
    ['APM', apmPaymentInputSchema, apmPaymentInputFor],
    ['hosted', checkoutInputSchema, checkoutInputFor],
  ] as const;
  it('builds one schema per key set and uses the whole schema for anything else (first: at most 16 key sets are kept)', () => {
    const a = { order_no: 'A-1', currency: 'USD', amount: 100 };
    expect(checkoutInputFor(a)).toBe(checkoutInputFor({ order_no: 'B-2', currency: 'EUR', amount: 5 }));
    expect(checkoutInputFor(a)).not.toBe(checkoutInputSchema);
    expect(checkoutInputFor({ ...a, misspelt_field: 1 })).toBe(checkoutInputSchema);
    expect(checkoutInputFor([a])).toBe(checkoutInputSchema);
    expect(checkoutInputFor(null)).toBe(checkoutInputSchema);
  });

  for (const [kind, whole, cutFor] of kinds) {
    it(`decide every ${kind} input as the whole schema does`, () => {
      fc.assert(
        fc.property(input, (value) => {
          // Keys set to undefined are present keys: both schemas see them.
          expect(decision(cutFor(value), value)).toEqual(decision(whole, value));
        }),
        { numRuns: 500 },
      );
    });
  }

});
