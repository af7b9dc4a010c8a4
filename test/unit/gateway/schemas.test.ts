import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { BATCH_LIMITS, captureRequestSchema } from '../../../server/gateway/schemas/batch.js';
import { gatewayErrorBodySchema, zodIssuesToFields } from '../../../server/gateway/schemas/common.js';
import { notificationSchema } from '../../../server/gateway/schemas/notifications.js';
import { checkoutRequestSchema, directPaymentRequestSchema } from '../../../server/gateway/schemas/payments.js';
import { payoutRequestSchema } from '../../../server/gateway/schemas/payouts.js';
import { queryRequestSchema, queryResponseSchema } from '../../../server/gateway/schemas/queries.js';
import { authoriseResponseSchema } from '../../../server/gateway/schemas/responses.js';

const SIG = 'a'.repeat(64);
const direct = {
  merchant_id: '701001', account_id: '701001010', encryption_data: SIG, order_no: 'A-1', currency: 'USD', amount: '10.00',
  website: 'shop.example', items: 'Mug#,#M1#,#10.00#,#1', shopper_id: 's1', shopper_email: 'a@b.example', shopper_ip: '203.0.113.9',
  card: '4111111111111111', expiration_month: '07', expiration_year: '2031', security_code: '737',
};

const fieldsOf = (schema: z.ZodType, value: unknown): string[] => {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : zodIssuesToFields(parsed.error).map((i) => i.field);
};

describe('wire schemas', () => {
  it('accepts a minimal direct payment and names each missing required field', () => {
    expect(fieldsOf(directPaymentRequestSchema, direct)).toEqual([]);
    const { website: _w, items: _i, shopper_email: _e, ...missing } = direct;
    expect(fieldsOf(directPaymentRequestSchema, missing).sort()).toEqual(['items', 'shopper_email', 'website']);
  });

  it('checks formats and length limits', () => {
    expect(fieldsOf(directPaymentRequestSchema, { ...direct, currency: 'usd', billing_country: 'USA', order_no: 'x'.repeat(51), amount: '10,00' }).sort())
      .toEqual(['amount', 'billing_country', 'currency', 'order_no']);
    expect(fieldsOf(directPaymentRequestSchema, { ...direct, birth_date: '1990-01-31', challenge_window_size: '1' }).sort()).toEqual(['birth_date', 'challenge_window_size']);
  });

  it('allows an empty card only with a token', () => {
    expect(fieldsOf(directPaymentRequestSchema, { ...direct, card: '' })).toEqual(['card']);
    expect(fieldsOf(directPaymentRequestSchema, { ...direct, card: '', token_id: 'tok_1' })).toEqual([]);
  });

  it('gives dotted paths with array indexes, and names unknown keys', () => {
    const bad = { ...direct, cart_items: [{ basic_item_data: { quantity: 2 } }], subscription: { billing_cycle: 1.5 } };
    expect(fieldsOf(directPaymentRequestSchema, bad).sort()).toEqual(['cart_items[0].basic_item_data.quantity', 'subscription.billing_cycle']);
    expect(fieldsOf(z.strictObject({ a: z.string() }), { a: 'x', b: 1 })).toEqual(['b']);
    expect(fieldsOf(z.string(), 1)).toEqual(['(input)']);
  });

  it('never quotes the offending value in a message', () => {
    const parsed = directPaymentRequestSchema.safeParse({ ...direct, card: '4111-1111-1111-1111', security_code: '73a' });
    expect(JSON.stringify(zodIssuesToFields(parsed.error!))).not.toMatch(/4111|73a/);
  });

  it('reads checkout_time as a number or as the digits a form-encoded authorise carries, like the checkout form', () => {
    for (const schema of [directPaymentRequestSchema, checkoutRequestSchema]) {
      expect(schema.parse({ ...direct, checkout_time: '1767225600' }).checkout_time).toBe(1767225600);
      expect(schema.parse({ ...direct, checkout_time: 1767225600 }).checkout_time).toBe(1767225600);
      expect(fieldsOf(schema, { ...direct, checkout_time: '17672256.5' })).toEqual(['checkout_time']);
      expect(fieldsOf(schema, { ...direct, checkout_time: -1 })).toEqual(['checkout_time']);
    }
    // A genuinely form-encoded body: every value a string.
    const form = Object.fromEntries(new URLSearchParams({ ...direct, checkout_time: '1767225600' }));
    expect(directPaymentRequestSchema.safeParse(form).success).toBe(true);
  });

  it('reads the checkout form: strings for numbers, JSON text for nested values', () => {
    const { card: _c, expiration_month: _m, expiration_year: _y, security_code: _s, website: _w, shopper_ip: _ip, ...form } = direct;
    const parsed = checkoutRequestSchema.parse({ ...form, checkout_time: '1767225600', subscription: JSON.stringify({ billing_cycle: 3, interval: 'day' }) });
    expect(parsed.checkout_time).toBe(1767225600);
    expect(parsed.subscription).toEqual({ billing_cycle: 3, interval: 'day' });
    expect('card' in checkoutRequestSchema.parse({ ...form, card: '4111111111111111' })).toBe(false);
  });

  it('strips unknown fields from replies but keeps the known ones', () => {
    expect(authoriseResponseSchema.parse({ order_no: 'A', order_status: '1', surprise: 'x' })).toEqual({ order_no: 'A', order_status: '1' });
    expect(queryResponseSchema.parse({ return_status: '1', orders_list: [{ order_no: 'A', amount: '1.00', currency: 'USD', extra: 1 }] }).orders_list)
      .toEqual([{ order_no: 'A', amount: '1.00', currency: 'USD' }]);
  });

  it('enforces the batch and query limits', () => {
    expect(BATCH_LIMITS).toEqual({ capture: 50, cancel: 50, refund: 50, review: 100, retrievalTrans: 100, retrievalRefund: 100, updateOrders: 50 });
    const order = { transaction_id: 'T', order_no: 'O', currency: 'USD', amount: '1.00' };
    const envelope = { merchant_id: '701001', account_id: '701001010', encryption_data: SIG };
    expect(captureRequestSchema.safeParse({ ...envelope, capture_orders: Array(50).fill(order) }).success).toBe(true);
    expect(captureRequestSchema.safeParse({ ...envelope, capture_orders: Array(51).fill(order) }).success).toBe(false);
    expect(queryRequestSchema.safeParse({ ...envelope, orders: Array.from({ length: 100 }, (_, i) => String(i)).join(',') }).success).toBe(true);
    expect(queryRequestSchema.safeParse({ ...envelope, orders: Array.from({ length: 101 }, (_, i) => String(i)).join(',') }).success).toBe(false);
    expect(queryRequestSchema.safeParse({ ...envelope, orders: 'x'.repeat(1001) }).success).toBe(false);
  });

  it('checks payout formats: digit amounts, UUID request_id, currency, beneficiary or beneficiary_id', () => {
    const payout = { merchant_id: '701001', account_id: '701001010', encryption_data: SIG, payment_amount: '10000', payment_currency: 'EUR', request_id: '0f8fad5b-d9cb-469f-a165-70867728950e', beneficiary_id: 'B1' };
    expect(fieldsOf(payoutRequestSchema, payout)).toEqual([]);
    // A payout amount is a string of digits, unlike acquiring amounts.
    expect(fieldsOf(payoutRequestSchema, { ...payout, payment_amount: '100.00' })).toEqual(['payment_amount']);
    expect(fieldsOf(payoutRequestSchema, { ...payout, request_id: 'not-a-uuid', beneficiary_id: undefined }).sort()).toEqual(['beneficiary', 'request_id']);
    expect(fieldsOf(payoutRequestSchema, { ...payout, beneficiary: { address: { country_code: 'DEU' } } })).toEqual(['beneficiary.address.country_code']);
  });

  it('reads notifications and the error body', () => {
    const note = { merchant_id: '701001', account_id: '701001010', order_no: 'A', encryption_data: SIG, webhooks_type: 'refund', refund_amount: '1.00', refund_reference_id: 'T1-01', payment_status: '4100' };
    expect(notificationSchema.parse(note)).toEqual(note);
    expect(notificationSchema.safeParse({ ...note, webhooks_type: 'other' }).success).toBe(false);
    expect(gatewayErrorBodySchema.parse({ code: 'I0013', source: 'encryption_data', message: 'bad signature' }).code).toBe('I0013');
  });
});
