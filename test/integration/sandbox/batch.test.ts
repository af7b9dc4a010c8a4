import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCOUNT_ID, directRequest, MERCHANT_ID, postForm, postJsonAsForm, readRespon, sign, startReceiver, startSandbox,
  type Harness, type Receiver,
} from './support.js';

let auto: Harness;
let manual: Harness;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  auto = await startSandbox();
  manual = await startSandbox({ captureMode: 'manual' });
});
afterAll(async () => {
  await auto.close();
  await manual.close();
  await receiver.close();
});

async function pay(h: Harness, card = '4242424242424242', amount = '100.00') {
  const request = directRequest({ card, amount, item_total: amount, notify_url: receiver.url });
  const respon = readRespon((await postJsonAsForm(h.baseUrl, '/v1/authorise', request)).text);
  return { transaction_id: respon.transaction_id ?? '', order_no: String(request.order_no), currency: 'USD', amount: Math.round(Number(amount) * 100) };
}

const notificationsOf = (orderNo: string): Record<string, string>[] => receiver.received.filter((r) => r.fields.order_no === orderNo).map((r) => r.fields);

describe('capture and cancel (manual capture mode)', () => {
  it('an approved payment stays authorised until captured; a second capture fails', async () => {
    const order = await pay(manual);
    expect(manual.sandbox.ledger.transaction(order.order_no)).toMatchObject({ orderStatus: '2', paymentStatus: '2000', capturedAmount: 0 });
    const [first] = await manual.client.batch.capture([order]);
    expect(first).toMatchObject({ ok: true, status: '1', message: null });
    expect(first?.element?.error_message).toBe('');
    expect(manual.sandbox.ledger.transaction(order.order_no)).toMatchObject({ orderStatus: '1', paymentStatus: '3000', capturedAmount: 10000 });
    const [second] = await manual.client.batch.capture([order]);
    expect(second).toMatchObject({ ok: false, status: '0' });
    expect(second?.message).toMatch(/already captured/);
    await manual.sandbox.notifier.flush();
    // Recorded in the order they happened; delivered over parallel connections, so they may
    // reach the receiver in either order.
    expect(manual.sandbox.ledger.notifications().filter((n) => n.orderNo === order.order_no).map((n) => n.webhooksType)).toEqual(['payment', 'capture']);
    expect(notificationsOf(order.order_no).map((n) => n.webhooks_type).sort()).toEqual(['capture', 'payment']);
  });

  it('cancel voids an authorisation; capture and cancel after that fail per element', async () => {
    const order = await pay(manual);
    const captured = await pay(manual);
    await manual.client.batch.capture([captured]);
    const results = await manual.client.batch.cancel([order, captured]);
    expect(results.map((r) => r.ok)).toEqual([true, false]);
    expect(results[1]?.message).toMatch(/refund it instead/);
    expect(manual.sandbox.ledger.transaction(order.order_no)).toMatchObject({ orderStatus: '3', paymentStatus: '6000', resultInfo: '0400:Cancelled' });
    expect(manual.sandbox.ledger.transaction(captured.order_no)?.paymentStatus).toBe('3000');
    const [late] = await manual.client.batch.capture([order]);
    expect(late?.ok).toBe(false);
    expect(late?.message).toMatch(/cancelled/);
  });

  it('cannot capture a declined payment', async () => {
    const declined = await pay(manual, '4000000000000002');
    const [result] = await manual.client.batch.capture([declined]);
    expect(result?.ok).toBe(false);
    expect(result?.message).toMatch(/declined/);
    expect(manual.sandbox.ledger.transaction(declined.order_no)?.capturedAmount).toBe(0);
  });

  it('refuses 51 captures whole with I0017 and changes nothing', async () => {
    const order = await pay(manual);
    const orders = Array.from({ length: 51 }, () => ({ ...order, amount: '100.00' }));
    const request = sign('capture', { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, capture_orders: orders });
    const reply = await postJsonAsForm(manual.baseUrl, '/v1/capture', request);
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toMatchObject({ code: 'I0017', source: 'capture_orders' });
    expect(manual.sandbox.ledger.transaction(order.order_no)).toMatchObject({ paymentStatus: '2000', capturedAmount: 0 });
  });

  it('answers a raw sample-shaped capture with the batch envelope echoing encryption_data', async () => {
    const order = await pay(manual);
    const request = sign('capture', { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, capture_orders: [{ ...order, amount: '100.00' }] });
    const reply = await postJsonAsForm(manual.baseUrl, '/v1/capture', request);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toEqual({
      merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, return_status: '1', return_message: 'OK', encryption_data: request.encryption_data,
      capture_orders: [{ transaction_id: order.transaction_id, order_no: order.order_no, currency: 'USD', amount: '100.00', capture_status: '1', error_message: '' }],
    });
  });
});

describe('risk review', () => {
  it('review_flag 1 approves a held payment, 0 rejects (cancels) it', async () => {
    const approveMe = await pay(auto, '4000000000009235');
    const rejectMe = await pay(auto, '4000000000009235');
    const results = await auto.client.batch.review([{ ...approveMe, review_flag: '1' }, { ...rejectMe, review_flag: '0' }]);
    expect(results.map((r) => [r.ok, r.element?.review_status, r.element?.review_flag])).toEqual([[true, '1', '1'], [true, '1', '0']]);
    expect(auto.sandbox.ledger.transaction(approveMe.order_no)).toMatchObject({ orderStatus: '1', paymentStatus: '3000', riskAction: 'ACCEPT' });
    expect(auto.sandbox.ledger.transaction(rejectMe.order_no)).toMatchObject({ orderStatus: '3', paymentStatus: '6000', resultInfo: '0101:Rejected by risk review' });
    const [again] = await auto.client.batch.review([{ ...approveMe, review_flag: '1' }]);
    expect(again?.ok).toBe(false);
    await auto.sandbox.notifier.flush();
    expect(notificationsOf(approveMe.order_no).map((n) => [n.webhooks_type, n.order_status])).toEqual([['payment', '-2'], ['review', '1']]);
  });
});

describe('refunds and refund search', () => {
  it('partial and multiple refunds up to the captured amount, then refusal', async () => {
    const order = await pay(auto);
    const refund = (cents: number) => ({ ...order, refund_amount: cents, refund_reason: 'customer request' });
    const first = await auto.client.batch.refund([refund(3000), refund(5000)]);
    expect(first.map((r) => [r.ok, r.element?.refund_reference_id, r.element?.refund_message])).toEqual([
      [true, `${order.transaction_id}-01`, 'V0000:OK'],
      [true, `${order.transaction_id}-02`, 'V0000:OK'],
    ]);
    expect(auto.sandbox.ledger.transaction(order.order_no)).toMatchObject({ paymentStatus: '3100', refundedAmount: 8000 });
    const [over] = await auto.client.batch.refund([refund(3000)]);
    expect(over).toMatchObject({ ok: false, status: '0' });
    expect(over?.element?.refund_message).toBe('V0001:Refund amount exceeds the amount remaining');
    expect(auto.sandbox.ledger.transaction(order.order_no)?.refundedAmount).toBe(8000);
    const [rest] = await auto.client.batch.refund([refund(2000)]);
    expect(rest?.element?.refund_reference_id).toBe(`${order.transaction_id}-03`);
    expect(auto.sandbox.ledger.transaction(order.order_no)).toMatchObject({ paymentStatus: '4100', refundedAmount: 10000 });
    const references = auto.sandbox.ledger.refunds().map((r) => r.refundReference);
    expect(new Set(references).size).toBe(references.length);
    await auto.sandbox.notifier.flush();
    expect(notificationsOf(order.order_no).filter((n) => n.webhooks_type === 'refund').map((n) => [n.refund_amount, n.refund_reference_id, n.payment_status])).toEqual([
      ['30.00', `${order.transaction_id}-01`, '3100'],
      ['50.00', `${order.transaction_id}-02`, '3100'],
      ['20.00', `${order.transaction_id}-03`, '4100'],
    ]);

    const search = await auto.client.queries.refunds({ refundOrders: [order.order_no] });
    expect(search.refunds.map((r) => r.raw.refund_reference_id)).toEqual([1, 2, 3].map((n) => `${order.transaction_id}-0${n}`));
    expect(search.refunds[0]?.raw).toMatchObject({ amount: '100.00', refund_amount: '30.00', refund_status: '1', currency: 'USD', refund_reason: 'customer request' });
    expect(search.refunds[0]?.raw.refund_date).toMatch(/^\d{14}$/);
    const byReference = await auto.client.queries.refunds({ refundReferences: [references.at(-1) ?? ''] });
    expect(byReference.refunds).toHaveLength(1);
    const byId = await auto.client.queries.refunds({ merchantRefunds: [`${order.transaction_id}-02`] });
    expect(byId.refunds[0]?.raw.refund_amount).toBe('50.00');
  });

  it('refuses to refund an uncaptured authorisation', async () => {
    const order = await pay(manual);
    const [result] = await manual.client.batch.refund([{ ...order, refund_amount: 100 }]);
    expect(result?.element?.refund_message).toBe('V0002:Transaction is not captured');
    expect(manual.sandbox.ledger.refunds().filter((r) => r.orderNo === order.order_no)).toHaveLength(0);
  });
});

describe('query', () => {
  it('answers retrievalTrans (genuine form) with the specified orders_list', async () => {
    const order = await pay(auto);
    const request = sign('retrievalTrans', { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID }) as Record<string, string>;
    const reply = await postForm(auto.baseUrl, '/v1/retrievalTrans', { ...request, orders: order.order_no });
    expect(reply.status).toBe(200);
    const body = JSON.parse(reply.text) as Record<string, unknown> & { orders_list: Record<string, unknown>[] };
    // As the published query sample: no encryption_data, and with one order its fraud fields at the top level.
    expect(body).toMatchObject({
      merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, return_status: '1', return_message: 'OK',
      antifraud_provider: 'sandbox', is3ds: '0', fraud_check_result: [{ check_items: 'card_bin', status: 'ACCEPT' }],
    });
    expect(body).not.toHaveProperty('encryption_data');
    expect(body.orders_list).toHaveLength(1);
    expect(body.orders_list[0]).toMatchObject({
      order_no: order.order_no, transaction_id: order.transaction_id, amount: '100.00', currency: 'USD', payment_status: '3000', query_result: '1',
      website: 'shop.example', shopper_email: 'shopper@example.com',
      delivery_information: { delivery_city: 'Amsterdam', delivery_country: 'NL', delivery_postal_code: '1012 LG' },
    });
    expect(body.orders_list[0]).not.toHaveProperty('antifraud_provider');
    expect(body.orders_list[0]?.transaction_date).toMatch(/^\d{14}$/);
    const viaClient = await auto.client.queries.transactions({ trades: [order.transaction_id] });
    expect(viaClient.orders[0]).toMatchObject({
      orderNo: order.order_no, outcome: 'approved', amount: 10000, antifraudProvider: 'sandbox', is3ds: '0',
      fraudCheckResult: [{ checkItems: 'card_bin', status: 'ACCEPT' }],
    });
  });
});
