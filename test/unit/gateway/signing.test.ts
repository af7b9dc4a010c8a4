import { createHash } from 'node:crypto';
import * as nodeCrypto from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_RECIPES, resolveRecipes, signaturesEqual, signMessage, SIGNED_OPERATIONS, verifyMessage, type SignedOperation,
} from '../../../server/gateway/signing.js';

vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>();
  return { ...original, timingSafeEqual: vi.fn(original.timingSafeEqual) };
});

const KEY = 'S3cr3t-Key';
/** The formula, written out independently: SHA-256 of the values (whitespace removed) then the key. */
const sha = (values: string[], key = KEY): string =>
  createHash('sha256').update(values.map((v) => v.replace(/\s+/g, '')).join('') + key).digest('hex');

const payment = { merchant_id: '701001', account_id: '701001010', order_no: 'ORD 1', currency: 'USD', amount: '10.50', transaction_id: 'T1', order_status: '1' };
const batch = (key: string) => ({ merchant_id: '701001', account_id: '701001010', [key]: [{ transaction_id: 'T1' }, { transaction_id: 'T2' }] });

const vectors: Record<SignedOperation, [Record<string, unknown>, string[]]> = {
  retrievalTrans: [{ merchant_id: '701001', account_id: '701001010' }, ['701001', '701001010']],
  retrievalRefund: [{ merchant_id: '701001', account_id: '701001010' }, ['701001', '701001010']],
  refund: [batch('refund_orders'), ['701001', '701001010', 'T1', 'T2']],
  capture: [batch('capture_orders'), ['701001', '701001010', 'T1', 'T2']],
  cancel: [batch('cancel_orders'), ['701001', '701001010', 'T1', 'T2']],
  review: [batch('review_orders'), ['701001', '701001010', 'T1', 'T2']],
  updateOrders: [batch('update_orders'), ['701001', '701001010', 'T1', 'T2']],
  payout: [
    { merchant_id: '701001', account_id: '701001010', request_id: 'r-1', payment_currency: 'EUR', payment_amount: '100' },
    ['701001', '701001010', 'r-1', 'EUR', '100'],
  ],
  optimise: [
    { merchant_id: '701001', account_id: '701001010', request_id: 'r-2', currency: 'USD', amount: '5.00', shopper_email: 'a@b.c' },
    ['701001', '701001010', 'r-2', 'USD', '5.00', 'a@b.c'],
  ],
  authorise: [payment, ['701001', '701001010', 'ORD1', 'USD', '10.50']],
  checkout: [payment, ['701001', '701001010', 'ORD1', 'USD', '10.50']],
  cancelsubscription: [{ merchant_id: '701001', account_id: '701001010', recurring_id: 'REC-9' }, ['701001', '701001010', 'REC-9']],
  authoriseResponse: [payment, ['701001', '701001010', 'ORD1', 'USD', '10.50', 'T1', '1']],
  notification: [{ ...payment, transaction_id: undefined }, ['701001', '701001010', 'ORD1', 'USD', '10.50', '', '1']],
};

describe('signing recipes', () => {
  beforeEach(() => {
    vi.mocked(nodeCrypto.timingSafeEqual).mockClear();
  });

  it('has a vector for every signed operation', () => {
    expect(Object.keys(vectors).sort()).toEqual([...SIGNED_OPERATIONS].sort());
  });

  for (const [operation, [fields, values]] of Object.entries(vectors) as [SignedOperation, [Record<string, unknown>, string[]]][]) {
    it(`signs ${operation} as the formula says and verifies it`, () => {
      const expected = sha(values);
      expect(signMessage(operation, fields, KEY)).toBe(expected);
      expect(expected).toMatch(/^[0-9a-f]{64}$/);
      expect(verifyMessage(operation, fields, expected, [KEY])).toBe(true);
    });
  }

  it('removes whitespace from values before hashing', () => {
    const spaced = { merchant_id: ' 701001 ', account_id: '701\t001010', order_no: 'A B\nC', currency: 'USD', amount: '1.00' };
    expect(signMessage('authorise', spaced, KEY)).toBe(sha(['701001', '701001010', 'ABC', 'USD', '1.00']));
  });

  it('accepts upper-case hex from the gateway', () => {
    const sig = sha(vectors.authoriseResponse[1]).toUpperCase();
    expect(verifyMessage('authoriseResponse', payment, sig, [KEY])).toBe(true);
  });

  it('refuses a wrong key, a changed field and malformed signatures', () => {
    const sig = sha(vectors.authoriseResponse[1]);
    expect(verifyMessage('authoriseResponse', payment, sig, ['other-key'])).toBe(false);
    expect(verifyMessage('authoriseResponse', { ...payment, amount: '10.51' }, sig, [KEY])).toBe(false);
    expect(verifyMessage('authoriseResponse', payment, sig.slice(1), [KEY])).toBe(false);
    expect(verifyMessage('authoriseResponse', payment, undefined, [KEY])).toBe(false);
    expect(verifyMessage('authoriseResponse', payment, sig, [])).toBe(false);
    expect(verifyMessage('authoriseResponse', payment, sig, [''])).toBe(false);
  });

  it('verifies under any active key during rotation', () => {
    const oldSig = sha(vectors.authoriseResponse[1], 'old-key');
    const newSig = sha(vectors.authoriseResponse[1], 'new-key');
    expect(verifyMessage('authoriseResponse', payment, oldSig, ['new-key', 'old-key'])).toBe(true);
    expect(verifyMessage('authoriseResponse', payment, newSig, ['new-key', 'old-key'])).toBe(true);
    expect(verifyMessage('authoriseResponse', payment, oldSig, ['new-key'])).toBe(false);
  });

  it('compares in constant time, for every key and even when lengths differ', () => {
    const sig = sha(vectors.authoriseResponse[1], 'k1');
    verifyMessage('authoriseResponse', payment, sig, ['k1', 'k2', 'k3']);
    expect(nodeCrypto.timingSafeEqual).toHaveBeenCalledTimes(3);
    vi.mocked(nodeCrypto.timingSafeEqual).mockClear();
    expect(signaturesEqual(sig, sig.slice(2))).toBe(false);
    expect(nodeCrypto.timingSafeEqual).toHaveBeenCalledTimes(1);
  });

  it('takes a per-operation override of a recipe', () => {
    const recipes = resolveRecipes({ capture: ['merchant_id', { each: 'capture_orders', field: 'order_no' }] });
    const fields = { merchant_id: 'M', capture_orders: [{ order_no: 'O1' }, { order_no: 'O2' }] };
    expect(signMessage('capture', fields, KEY, recipes)).toBe(sha(['M', 'O1', 'O2']));
    expect(recipes.refund).toBe(DEFAULT_RECIPES.refund);
  });
});
