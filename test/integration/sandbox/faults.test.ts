import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayClient } from '../../../server/gateway/client.js';
import { isKitError } from '../../../server/errors.js';
import {
  ACCOUNT_ID, directRequest, FUTURE_YEAR, MERCHANT_ID, orderNo, postJsonAsForm, readRespon, SIGN_KEY, startReceiver, startSandbox,
  type Harness, type Receiver,
} from './support.js';

let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  h = await startSandbox({ captureMode: 'manual' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

const clientWithTimeout = (timeoutMs: number) =>
  createGatewayClient({ baseUrl: h.baseUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY, timeoutMs, readRetries: { attempts: 1, baseDelayMs: 0 } });

const cardInput = (order: string) => ({
  order_no: order, currency: 'USD', amount: 1000, website: 'shop.example', shopper_id: 's', shopper_email: 'f@example.com', shopper_ip: '192.0.2.1',
  items: [{ name: 'Cup', sku: 'C', unitPrice: 1000, quantity: 1 }], card: '4242424242424242', expiration_month: '01', expiration_year: FUTURE_YEAR, security_code: '100',
});

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('faults', () => {
  it('latency delays the answer beyond a short client timeout', async () => {
    const order = orderNo('LAT');
    h.sandbox.faults.add({ kind: 'latency', operation: 'authorise', orderNo: order, latencyMs: 2_000, times: 1 });
    const error = await caught(clientWithTimeout(200).payments.authorise(cardInput(order)));
    expect(isKitError(error) && error.code).toBe('ERR_TRANSPORT_TIMEOUT');
    expect(h.sandbox.faults.list()).toHaveLength(0);
  });

  it('timeout holds the response: the client gives up with an unknown outcome, the payment exists', async () => {
    const order = orderNo('TMO');
    h.sandbox.faults.add({ kind: 'timeout', operation: 'authorise', orderNo: order });
    const error = await caught(clientWithTimeout(300).payments.authorise(cardInput(order)));
    expect(error).toMatchObject({ code: 'ERR_TRANSPORT_TIMEOUT', outcomeUnknown: true });
    expect(h.sandbox.ledger.transaction(order)?.paymentStatus).toBe('2000');
    h.sandbox.faults.clear();
  });

  it('http500 refuses before anything happens', async () => {
    const request = directRequest();
    h.sandbox.faults.add({ kind: 'http500', operation: 'authorise', times: 1 });
    const reply = await postJsonAsForm(h.baseUrl, '/v1/authorise', request);
    expect(reply.status).toBe(500);
    expect(h.sandbox.ledger.transaction(String(request.order_no))).toBeUndefined();
    expect((await postJsonAsForm(h.baseUrl, '/v1/authorise', request)).status).toBe(200);
  });

  it('malformed breaks the XML of authorise (processed) and the JSON of capture', async () => {
    const order = orderNo('MAL');
    h.sandbox.faults.add({ kind: 'malformed', operation: 'authorise', orderNo: order, times: 1 });
    const error = await caught(h.client.payments.authorise(cardInput(order)));
    expect(error).toMatchObject({ code: 'ERR_PROTOCOL_MALFORMED' });
    const tx = h.sandbox.ledger.transaction(order);
    expect(tx?.paymentStatus).toBe('2000');

    h.sandbox.faults.add({ kind: 'malformed', operation: 'capture', times: 1 });
    const [result] = await h.client.batch.capture([{ transaction_id: tx?.transactionId ?? '', order_no: order, currency: 'USD', amount: 1000 }]);
    expect(result?.ok).toBe(false);
    expect(result?.error?.code).toBe('ERR_PROTOCOL_MALFORMED');
  });

  it('reset destroys the connection after the request was processed', async () => {
    const request = directRequest();
    h.sandbox.faults.add({ kind: 'reset', operation: 'authorise', merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, times: 1 });
    await expect(postJsonAsForm(h.baseUrl, '/v1/authorise', request)).rejects.toThrow();
    expect(h.sandbox.ledger.transaction(String(request.order_no))?.orderStatus).toBe('2');
  });

  it('only matches its account, operation and order_no, and counts down `times`', async () => {
    h.sandbox.faults.add({ kind: 'http500', operation: 'capture', times: 1 });
    h.sandbox.faults.add({ kind: 'http500', operation: 'authorise', accountId: 'other', times: 5 });
    h.sandbox.faults.add({ kind: 'http500', operation: 'authorise', orderNo: 'SOMEONE-ELSE', times: 5 });
    expect((await postJsonAsForm(h.baseUrl, '/v1/authorise', directRequest())).status).toBe(200);
    expect(h.sandbox.faults.list().map((f) => [f.operation, f.used])).toEqual([['capture', 0], ['authorise', 0], ['authorise', 0]]);
    h.sandbox.faults.clear();
  });

  it('dropNotification records the delivery as dropped and sends nothing', async () => {
    const request = directRequest({ notify_url: receiver.url });
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo: String(request.order_no), times: 1 });
    readRespon((await postJsonAsForm(h.baseUrl, '/v1/authorise', request)).text);
    await h.sandbox.notifier.flush();
    const delivery = h.sandbox.ledger.notifications().find((n) => n.orderNo === request.order_no);
    expect(delivery).toMatchObject({ status: 'dropped', attempts: [] });
    expect(receiver.received.some((r) => r.fields.order_no === request.order_no)).toBe(false);
  });

  it('can be added, listed and cleared through the control API', async () => {
    const added = await fetch(`${h.baseUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'http500', operation: 'refund', times: 2 }) });
    expect(added.status).toBe(200);
    expect(h.sandbox.faults.list()).toMatchObject([{ kind: 'http500', operation: 'refund', times: 2 }]);
    const bad = await fetch(`${h.baseUrl}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'gremlins' }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ source: 'kind' });
    expect((await fetch(`${h.baseUrl}/_sandbox/faults`, { method: 'DELETE' })).status).toBe(200);
    expect(h.sandbox.faults.list()).toEqual([]);
  });
});
