/**
 * The published formats over real HTTP, client against the in-process sandbox: payout amounts as
 * digits in an explicit unit, cancelsubscription as JSON, the bare updateOrders reply, unsigned
 * query replies, top-level fraud fields and the IP allowlist refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayClient, type GatewayClient, type GatewayClientOptions } from '../../../server/gateway/index.js';
import {
  ACCOUNT_ID, directRequest, MERCHANT_ID, postJsonAsForm, readRespon, SIGN_KEY, startSandbox, type Harness,
} from './support.js';
import type { SandboxOptions } from '../../../server/sandbox/index.js';

let h: Harness;
beforeAll(async () => {
  h = await startSandbox();
});
afterAll(async () => {
  await h.close();
});

function clientOf(harness: Harness, options: Partial<GatewayClientOptions> = {}): GatewayClient {
  return createGatewayClient({
    baseUrl: harness.baseUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY, readRetries: { attempts: 1, baseDelayMs: 0 }, ...options,
  });
}

async function withSandbox(options: SandboxOptions, run: (harness: Harness) => Promise<void>): Promise<void> {
  const harness = await startSandbox(options);
  try {
    await run(harness);
  } finally {
    await harness.close();
  }
}

async function paid(harness: Harness): Promise<{ orderNo: string; transactionId: string }> {
  const request = directRequest();
  const respon = readRespon((await postJsonAsForm(harness.baseUrl, '/v1/authorise', request)).text);
  return { orderNo: String(request.order_no), transactionId: respon.transaction_id ?? '' };
}

const payout = { payment_currency: 'EUR', beneficiary_id: 'BEN-1', fee_paid_by: 'PAYER', payment_method: 'SWIFT' };

describe('payout amounts are digits in an explicit unit', () => {
  it("'major' (both defaults): 250.00 EUR travels as \"250\" and the sandbox pays 250 EUR", async () => {
    const result = await h.client.payouts.create({ ...payout, payment_amount: 25_000 });
    expect(result).toMatchObject({ status: 'COMPLETED', amountBeneficiaryReceives: 25_000, amountPayerPays: 25_250, feeAmount: 250 });
    const recorded = h.sandbox.ledger.payouts().find((p) => p.requestId === result.requestId);
    expect(recorded?.paymentAmount).toBe('250');
  });

  it("'major' refuses an amount with cents before sending, naming the field", async () => {
    const before = h.sandbox.ledger.payouts().length;
    await expect(h.client.payouts.create({ ...payout, payment_amount: 25_050 })).rejects.toMatchObject({ code: 'ERR_VALIDATION', field: 'payment_amount' });
    await expect(h.client.payouts.create({ ...payout, payment_amount: 25_000, source_amount: 101, source_currency: 'USD' })).rejects.toMatchObject({
      field: 'source_amount',
    });
    expect(h.sandbox.ledger.payouts()).toHaveLength(before);
  });

  it("'minor' on both sides: 250.50 EUR travels as \"25050\"", async () => {
    await withSandbox({ payoutAmountUnit: 'minor' }, async (minor) => {
      const result = await clientOf(minor, { payoutAmountUnit: 'minor' }).payouts.create({ ...payout, payment_amount: 25_050 });
      expect(result).toMatchObject({ status: 'COMPLETED', amountBeneficiaryReceives: 25_050, amountPayerPays: 25_301, feeAmount: 251 });
      expect(minor.sandbox.ledger.payouts().find((p) => p.requestId === result.requestId)?.paymentAmount).toBe('25050');
    });
  });
});

describe('cancelsubscription is JSON', () => {
  it('the client sends application/json and the sandbox, which takes only that, answers', async () => {
    const result = await h.client.subscriptions.cancel({ recurring_id: 'RC-NOT-THERE' });
    expect(result).toMatchObject({ ok: false, status: '0', message: 'Subscription RC-NOT-THERE not found' });
  });

  it('a client configured with another jsonContentType still sends this one as application/json', async () => {
    const result = await clientOf(h, { jsonContentType: 'text/plain' }).subscriptions.cancel({ recurring_id: 'RC-NOT-THERE' });
    expect(result).toMatchObject({ ok: false, message: 'Subscription RC-NOT-THERE not found' });
  });
});

describe('updateOrders answers as a whole', () => {
  it('success without elements: each order succeeded; failure: each failed with the message', async () => {
    const a = await paid(h);
    const b = await paid(h);
    const ok = await h.client.updateOrders([{ transaction_id: a.transactionId, status: 'shipped', ispass3d: '1' }, { transaction_id: b.transactionId, status: 'shipped', ispass3d: '0' }]);
    expect(ok.map((r) => [r.ok, r.message, r.error])).toEqual([[true, 'OK', null], [true, 'OK', null]]);
    const failed = await h.client.updateOrders([{ transaction_id: a.transactionId, status: 'refunded', ispass3d: '1' }, { transaction_id: 'SBX-NOPE', status: 'shipped', ispass3d: '0' }]);
    expect(failed.map((r) => [r.ok, r.status, r.message])).toEqual([[false, '0', 'Transaction SBX-NOPE not found'], [false, '0', 'Transaction SBX-NOPE not found']]);
    expect(failed[0]?.error?.code).toBe('ERR_GATEWAY_STATUS');
    expect(h.sandbox.ledger.updateOrders().filter((u) => u.transactionId === a.transactionId).map((u) => u.status)).toEqual(['shipped']);
  });
});

describe('query replies', () => {
  it('without encryption_data (as published) are accepted by default and refused by a strict client', async () => {
    const order = await paid(h);
    await expect(h.client.queries.transactions({ orders: [order.orderNo] })).resolves.toMatchObject({ orders: [{ orderNo: order.orderNo }] });
    await expect(clientOf(h, { requireReplySignatures: true }).queries.transactions({ orders: [order.orderNo] })).rejects.toMatchObject({
      code: 'ERR_PROTOCOL_SIGNATURE',
    });
  });

  it('a strict client accepts them once the sandbox echoes the signature', async () => {
    await withSandbox({ echoQuerySignature: true }, async (echoing) => {
      const order = await paid(echoing);
      await expect(clientOf(echoing, { requireReplySignatures: true }).queries.transactions({ orders: [order.orderNo] })).resolves.toMatchObject({
        orders: [{ orderNo: order.orderNo }],
      });
    });
  });

  it('fraud fields are read at the top level (one order) and per order (several)', async () => {
    const one = await paid(h);
    const two = await paid(h);
    const single = await h.client.queries.transactions({ orders: [one.orderNo] });
    expect(single.orders[0]).toMatchObject({ antifraudProvider: 'sandbox', is3ds: '0', fraudCheckResult: [{ checkItems: 'card_bin', status: 'ACCEPT' }] });
    const both = await h.client.queries.transactions({ orders: [one.orderNo, two.orderNo] });
    expect(both.orders).toHaveLength(2);
    for (const order of both.orders) expect(order).toMatchObject({ antifraudProvider: 'sandbox', is3ds: '0' });
  });

  it('from an address not on the allowlist: ERR_GATEWAY_IP_NOT_ALLOWED telling the merchant what to do', async () => {
    await withSandbox({ queryAllowedIps: ['198.51.100.1'] }, async (closed) => {
      const error: unknown = await closed.client.queries.transactions({ orders: ['ANY'] }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'ERR_GATEWAY_IP_NOT_ALLOWED', gatewayCode: 'I0016', httpStatus: 403 });
      expect((error as Error).message).toMatch(/allowlist/);
      expect((error as Error).message).toContain('127.0.0.1');
    });
  });
});
