/**
 * The client validates payment input at the edge and derives the wire request from it without
 * parsing it again. That is only safe if every input the input schemas accept becomes a request
 * the wire schemas (what the gateway and the sandbox check) accept: this property says so.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isKitError } from '../../../server/errors.js';
import type { CoreConfig } from '../../../server/gateway/core.js';
import type { ClientContext } from '../../../server/gateway/operations/context.js';
import { apmPaymentInputSchema, checkoutInputSchema, directPaymentInputSchema } from '../../../server/gateway/operations/payment-inputs.js';
import { buildSigned, type SignedWire } from '../../../server/gateway/operations/payments.js';
import { apmPaymentRequestSchema, checkoutRequestSchema, directPaymentRequestSchema } from '../../../server/gateway/schemas/payments.js';
import { DEFAULT_RECIPES } from '../../../server/gateway/signing.js';
import { toFormFields } from '../../../server/gateway/wire.js';

const ctx: ClientContext = {
  core: {} as CoreConfig,
  merchantId: '701001',
  accountId: '701001010',
  signKey: 'test-key',
  verifyKeys: ['test-key'],
  recipes: DEFAULT_RECIPES,
  checkAmountComponents: false,
  batchConcurrency: 1,
  requireReplySignatures: false,
  payoutAmountUnit: 'major',
};

const words = (max: number) => fc.string({ minLength: 1, maxLength: max });
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const common = fc.record({
  order_no: fc.stringMatching(/^[A-Za-z0-9-]{1,50}$/),
  currency: fc.constantFrom('USD', 'EUR', 'JPY', 'KWD', 'CLP'),
  amount: fc.integer({ min: 0, max: 10 ** 12 }),
  shipping: optional(fc.integer({ min: 0, max: 10 ** 9 })),
  discount: optional(fc.integer({ min: 0, max: 10 ** 9 })),
  website: words(60),
  items: fc.array(fc.record({ name: words(40), sku: fc.string({ maxLength: 20 }), unitPrice: fc.integer({ min: 0, max: 10 ** 9 }), quantity: fc.integer({ min: 1, max: 10_000 }) }), { minLength: 1, maxLength: 8 }),
  shopper_id: words(64),
  shopper_email: fc.emailAddress().filter((e) => e.length <= 100),
  shopper_ip: fc.ipV4(),
  shopper_phone: optional(fc.string({ maxLength: 50 })),
  note: optional(fc.string({ maxLength: 200 })),
  first_name: optional(fc.string({ maxLength: 100 })),
  billing_country: optional(fc.constantFrom('NL', 'US', 'JP')),
  billing_city: optional(fc.string({ maxLength: 50 })),
  notify_url: optional(fc.webUrl().filter((u) => u.length <= 2000 && !/\s/.test(u))),
  checkout_time: optional(fc.integer({ min: 1_600_000_000, max: 2_000_000_000 })),
  device_fingerprint: optional(fc.stringMatching(/^[a-f0-9]{64}$/)),
});

/** The built request when the input schema accepts `input`; null when the input is refused. */
function built(operation: 'authorise' | 'checkout', schema: Parameters<typeof buildSigned>[2], input: unknown): SignedWire | null {
  try {
    return buildSigned(ctx, operation, schema, input);
  } catch (error) {
    if (isKitError(error) && error.code === 'ERR_VALIDATION') return null;
    throw error;
  }
}

const clean = <T extends Record<string, unknown>>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('payment input → wire request', () => {
  it('every accepted hosted-page input becomes a checkout request the wire schema accepts, as JSON and as form fields', () => {
    fc.assert(
      fc.property(common, optional(fc.record({ contract_amount: optional(fc.integer({ min: 0, max: 10 ** 9 })), interval: optional(fc.constantFrom('day', 'month')), billing_cycle: optional(fc.nat(100)) })), (base, subscription) => {
        const wire = built('checkout', checkoutInputSchema, clean({ ...base, subscription }));
        fc.pre(wire !== null);
        expect(checkoutRequestSchema.safeParse(wire).error?.issues).toBeUndefined();
        expect(checkoutRequestSchema.safeParse(toFormFields(wire)).error?.issues).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('every accepted card input becomes an authorise request the wire schema accepts', () => {
    const card = fc.record({
      card: fc.stringMatching(/^\d{12,19}$/),
      expiration_month: fc.constantFrom('01', '07', '12'),
      expiration_year: fc.constantFrom('2031', '31'),
      security_code: fc.stringMatching(/^\d{3,4}$/),
    });
    fc.assert(
      fc.property(common, card, (base, cardFields) => {
        const wire = built('authorise', directPaymentInputSchema, clean({ ...base, ...cardFields }));
        fc.pre(wire !== null);
        expect(directPaymentRequestSchema.safeParse(wire).error?.issues).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('every accepted APM input becomes an authorise request the wire schema accepts', () => {
    fc.assert(
      fc.property(common, words(50), (base, method) => {
        const { checkout_time: _t, ...apm } = base;
        const wire = built('authorise', apmPaymentInputSchema, clean({ ...apm, payment_method: method }));
        fc.pre(wire !== null);
        expect(apmPaymentRequestSchema.safeParse(wire).error?.issues).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('signs the request and converts money to the wire\'s decimal strings', () => {
    const wire = built('checkout', checkoutInputSchema, {
      order_no: 'W-1', currency: 'KWD', amount: 12345, shipping: 5, website: 'shop.example', shopper_id: 's', shopper_email: 'a@b.example', shopper_ip: '203.0.113.9',
      items: [{ name: 'Tea', sku: 'T', unitPrice: 12340, quantity: 1 }],
    });
    expect(wire).toMatchObject({ merchant_id: '701001', account_id: '701001010', amount: '12.345', shipping: '0.005', items: 'Tea#,#T#,#12.340#,#1' });
    expect(wire?.encryption_data).toMatch(/^[0-9a-f]{64}$/);
  });
});
