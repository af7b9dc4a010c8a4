import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyMessage } from '../../../server/gateway/signing.js';
import {
  ACCOUNT_ID, directRequest, MERCHANT_ID, postJsonAsForm, readRespon, sign, SIGN_KEY, startReceiver, startSandbox,
  type Harness, type Receiver,
} from './support.js';

let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  h = await startSandbox();
  receiver = await startReceiver();
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

function payoutRequest(requestId: string): Record<string, unknown> {
  return sign('payout', {
    merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, request_id: requestId, payment_amount: '250', payment_currency: 'EUR',
    payment_date: '2030-01-15', payment_method: 'SWIFT', fee_paid_by: 'PAYER', swift_charge_option: 'SHARED', fund_source: 'DepositAccount',
    reason: 'Supplier invoice', reference: 'INV-77', client_data: 'batch 4', notify_url: receiver.url,
    beneficiary: {
      entity_type: 'COMPANY', company_name: 'Acme BV', address: { city: 'Utrecht', country_code: 'NL', street_address: 'Oudegracht 1' },
      bank_details: { account_currency: 'EUR', account_name: 'Acme BV', iban: 'NL91ABNA0417164300', swift_code: 'ABNANL2A', bank_country_code: 'NL' },
      person_documents: [{ file_type: 'application/pdf', file_url: 'https://files.example/kyc.pdf', labels: ['kyc'] }],
    },
    payer: { entity_type: 'COMPANY', company_name: 'Shop Ltd', address: { city: 'London', country_code: 'GB' } },
  });
}

describe('payout', () => {
  it('completes, echoes the request, and a duplicate request_id gets the same bytes without a second payout', async () => {
    const requestId = randomUUID();
    const request = payoutRequest(requestId);
    const first = await postJsonAsForm(h.baseUrl, '/v1/payout', request);
    expect(first.status).toBe(200);
    const body = JSON.parse(first.text) as Record<string, unknown>;
    expect(body).toMatchObject({
      merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, request_id: requestId, encryption_data: request.encryption_data, status: 'COMPLETED',
      payment_amount: '250', payment_currency: 'EUR', fee_currency: 'EUR', fee_amount: 2.5, amount_payer_pays: 252.5, amount_beneficiary_receives: 250,
      reason: 'Supplier invoice', reference: 'INV-77', fund_source: 'DepositAccount',
      beneficiary: { company_name: 'Acme BV', bank_details: { iban: 'NL91ABNA0417164300', local_clearing_system: 'SWIFT' } },
    });
    expect(body.short_reference_id).toMatch(/^\d{8}-[A-Z0-9]{6}$/);
    expect(body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
    expect(body.transaction_id).toEqual(expect.any(String));
    expect(body.payer_id).toEqual(expect.any(String));

    const second = await postJsonAsForm(h.baseUrl, '/v1/payout', request);
    expect(second.text).toBe(first.text);
    expect(h.sandbox.ledger.payouts().filter((p) => p.requestId === requestId)).toHaveLength(1);
    await h.sandbox.notifier.flush();
    const notified = receiver.received.filter((r) => r.fields.transaction_id === body.transaction_id);
    expect(notified).toHaveLength(1);
    expect(notified[0]?.fields).toMatchObject({ webhooks_type: 'payout', amount: '250.00', currency: 'EUR', order_no: 'INV-77' });
    expect(verifyMessage('notification', notified[0]?.fields ?? {}, notified[0]?.fields.encryption_data, [SIGN_KEY])).toBe(true);
  });

  it('works through the kit client', async () => {
    const result = await h.client.payouts.create({
      payment_amount: 10000, payment_currency: 'USD', beneficiary_id: 'BEN-1', fee_paid_by: 'BENEFICIARY', reason: 'refund of deposit',
    });
    expect(result).toMatchObject({ status: 'COMPLETED', feeAmount: 100, amountBeneficiaryReceives: 9900, amountPayerPays: 10000, feeCurrency: 'USD' });
    expect(h.sandbox.ledger.payouts().find((p) => p.requestId === result.requestId)?.transactionId).toBe(result.transactionId);
  });

  it('validates the whole tree and names the nested field', async () => {
    const request = payoutRequest(randomUUID()) as { beneficiary: { address: Record<string, string> } } & Record<string, unknown>;
    request.beneficiary.address.country_code = 'Netherlands';
    const reply = await postJsonAsForm(h.baseUrl, '/v1/payout', request);
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toMatchObject({ source: 'beneficiary.address.country_code' });
    expect(h.sandbox.ledger.payouts().some((p) => p.requestId === request.request_id)).toBe(false);
  });
});

describe('subscriptions', () => {
  it('an approved authorise with a subscription creates a scheduled subscription; cancelsubscription stops it', async () => {
    const request = directRequest({ notify_url: receiver.url, subscription: { contract_name: 'Tea club', contract_amount: '25.00', interval: 'month', interval_count: '1', billing_cycle: 12 } });
    const respon = readRespon((await postJsonAsForm(h.baseUrl, '/v1/authorise', request)).text);
    expect(respon).toMatchObject({ contract_name: 'Tea club', recurring_deduction_period: '1 month' });
    expect(respon.recurring_id).toMatch(/^RC/);
    expect(respon.recurring_deduction_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const subscription = h.sandbox.ledger.subscriptions().find((s) => s.recurringId === respon.recurring_id);
    expect(subscription).toMatchObject({ status: 'active', contractName: 'Tea club', transactionId: respon.transaction_id });
    expect(Date.parse(subscription?.nextDeductionAt ?? '')).toBeGreaterThan(Date.now() + 27 * 86_400_000);

    const query = await h.client.queries.transactions({ orders: [String(request.order_no)] });
    expect(query.orders[0]?.subscription).toMatchObject({ recurringId: respon.recurring_id, recurringStatus: '1', contractName: 'Tea club' });
    expect(query.orders[0]?.subscription?.recurringDeductionTime).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    const cancelled = await h.client.subscriptions.cancel({ recurring_id: respon.recurring_id ?? '', contract_name: 'Tea club' });
    expect(cancelled).toMatchObject({ ok: true, status: '1' });
    expect(h.sandbox.ledger.subscriptions().find((s) => s.recurringId === respon.recurring_id)?.status).toBe('cancelled');
    const again = await h.client.subscriptions.cancel({ recurring_id: respon.recurring_id ?? '' });
    expect(again).toMatchObject({ ok: false, message: 'Subscription is already cancelled' });
    await h.sandbox.notifier.flush();
    // Recorded in the order they happened; delivered over parallel connections, so they may
    // reach the receiver in either order.
    expect(h.sandbox.ledger.notifications().filter((n) => n.orderNo === request.order_no).map((n) => n.webhooksType)).toEqual(['payment', 'subscription']);
    expect(receiver.received.filter((r) => r.fields.order_no === request.order_no).map((r) => r.fields.webhooks_type).sort()).toEqual(['payment', 'subscription']);
  });

  it('a declined payment creates no subscription', async () => {
    const request = directRequest({ card: '4000000000000002', subscription: { contract_name: 'Nope', interval: 'day', interval_count: '7' } });
    const respon = readRespon((await postJsonAsForm(h.baseUrl, '/v1/authorise', request)).text);
    expect(respon.recurring_id ?? '').toBe('');
    expect(h.sandbox.ledger.subscriptions().some((s) => s.orderNo === request.order_no)).toBe(false);
  });
});

describe('updateOrders', () => {
  it('records the updates of a request that names only known transactions; the bare reply answers every order', async () => {
    const request = directRequest();
    const respon = readRespon((await postJsonAsForm(h.baseUrl, '/v1/authorise', request)).text);
    const results = await h.client.updateOrders([{ transaction_id: respon.transaction_id ?? '', status: 'shipped', ispass3d: '0' }]);
    expect(results.map((r) => [r.ok, r.status, r.message])).toEqual([[true, '1', 'OK']]);
    expect(h.sandbox.ledger.updateOrders().filter((u) => u.transactionId === respon.transaction_id)).toMatchObject([{ status: 'shipped', ispass3d: '0' }]);
  });

  it('refuses the whole request when one transaction is unknown, and records nothing', async () => {
    const request = directRequest();
    const respon = readRespon((await postJsonAsForm(h.baseUrl, '/v1/authorise', request)).text);
    const results = await h.client.updateOrders([{ transaction_id: respon.transaction_id ?? '', status: 'shipped', ispass3d: '0' }, { transaction_id: 'SBX-UNKNOWN', status: 'shipped', ispass3d: '0' }]);
    expect(results.map((r) => [r.ok, r.message])).toEqual([[false, 'Transaction SBX-UNKNOWN not found'], [false, 'Transaction SBX-UNKNOWN not found']]);
    expect(h.sandbox.ledger.updateOrders().some((u) => u.transactionId === respon.transaction_id)).toBe(false);
  });
});
