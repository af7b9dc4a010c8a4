import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError, ProtocolError, ValidationError } from '../../../server/errors.js';
import { jsonReply, type RecordedRequest } from '../../helpers/recording-server.js';
import { AID, clientFor, formOf, MID, sha, useRecordingServer } from './support.js';

const server = useRecordingServer();
afterEach(() => {
  // Every operation of the interface is a POST.
  expect(server.requests.map((r) => r.method).filter((m) => m !== 'POST')).toEqual([]);
});

const SIG = sha([MID, AID]);

/** Answers a query with one paid order per requested order number, echoing the signature. */
const queryResponder = (request: RecordedRequest) => {
  const form = formOf(request);
  const orders = (form.orders ?? '').split(',').filter(Boolean);
  return jsonReply({
    merchant_id: MID, account_id: AID, return_status: '1', return_message: 'OK', encryption_data: form.encryption_data,
    orders_list: orders.map((orderNo, i) => ({
      order_no: orderNo, amount: '12.34', currency: 'USD', payment_status: '3000', query_result: '1', is3ds: '0',
      transaction_id: `TX-${orderNo}`, transaction_date: '20260131090507', reference_no: `R${i}`, website: 'shop.example',
      antifraud_provider: 'antifraud', fraud_check_result: [{ check_items: 'ip', status: 'ACCEPT' }],
      delivery_information: { delivery_country: 'GB' },
      subscription_result: { contract_name: 'monthly', recurring_id: 'REC-1', recurring_status: '1', recurring_deduction_time: '2026-02-28', recurring_deduction_period: '1' },
      unknown_field: 'ignored',
    })),
  });
};

describe('queries.transactions', () => {
  it('sends a genuine form with the signature and reads typed orders', async () => {
    server.reply(queryResponder);
    const result = await clientFor(server).queries.transactions({ orders: ['Q-1', 'Q-2'] });

    const [request] = server.requests;
    expect(request?.path).toBe('/v1/retrievalTrans');
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request?.body).toBe(`merchant_id=${MID}&account_id=${AID}&encryption_data=${SIG}&orders=Q-1%2CQ-2`);

    expect(result.returnStatus).toBe('1');
    expect(result.returnMessage).toBe('OK');
    expect(result.orders.map((o) => o.orderNo)).toEqual(['Q-1', 'Q-2']);
    expect(result.orders[0]).toMatchObject({
      transactionId: 'TX-Q-1', amount: 1234, currency: 'USD', paymentStatus: '3000', outcome: 'approved', queryResult: '1',
      is3ds: '0', transactionDate: new Date(Date.UTC(2026, 0, 31, 9, 5, 7)), fraudCheckResult: [{ checkItems: 'ip', status: 'ACCEPT' }],
      subscription: { contractName: 'monthly', recurringId: 'REC-1', recurringStatus: '1', recurringDeductionTime: '2026-02-28', recurringDeductionPeriod: '1' },
    });
    expect(result.orders[0]?.raw).not.toHaveProperty('unknown_field');
  });

  it('queries by gateway transaction id through trades', async () => {
    server.reply(jsonReply({ return_status: '1', return_message: 'OK', encryption_data: SIG, orders_list: [] }));
    await clientFor(server).queries.transactions({ trades: ['TX-9'] });
    expect(formOf(server.requests[0])).toMatchObject({ trades: 'TX-9' });
    expect(formOf(server.requests[0])).not.toHaveProperty('orders');
  });

  it('splits more than 100 order numbers into several requests and merges the answers', async () => {
    server.setFallback(queryResponder);
    const orderNos = Array.from({ length: 250 }, (_, i) => `Q${i}`);
    const result = await clientFor(server).queries.transactions({ orders: orderNos });
    expect(server.requests.map((r) => (formOf(r).orders ?? '').split(',').length)).toEqual([100, 100, 50]);
    expect(result.orders.map((o) => o.orderNo)).toEqual(orderNos);
  });

  it('keeps every request within 1000 characters', async () => {
    server.setFallback(queryResponder);
    const orderNos = Array.from({ length: 30 }, (_, i) => `ORDER-${String(i).padStart(34, '0')}`);
    const result = await clientFor(server).queries.transactions({ orders: orderNos });
    expect(server.requests.length).toBe(2);
    for (const r of server.requests) expect((formOf(r).orders ?? '').length).toBeLessThanOrEqual(1000);
    expect(result.orders).toHaveLength(30);
  });

  it('refuses a failed status and a changed echo; a missing echo only when strict', async () => {
    const client = clientFor(server);
    server.reply(jsonReply({ return_status: '0', return_message: 'IP not registered', encryption_data: SIG }));
    await expect(client.queries.transactions({ orders: ['A'] })).rejects.toMatchObject({ code: 'ERR_GATEWAY_STATUS' });
    server.reply(jsonReply({ return_status: '1', encryption_data: 'f'.repeat(64), orders_list: [] }));
    await expect(client.queries.transactions({ orders: ['A'] })).rejects.toMatchObject({ code: 'ERR_PROTOCOL_SIGNATURE' });
    // No echo at all (the published query sample has none): accepted, unless the client is strict.
    server.reply(jsonReply({ return_status: '1', orders_list: [] }));
    await expect(client.queries.transactions({ orders: ['A'] })).resolves.toMatchObject({ orders: [] });
    server.reply(jsonReply({ return_status: '1', orders_list: [] }));
    await expect(clientFor(server, { requireReplySignatures: true }).queries.transactions({ orders: ['A'] })).rejects.toBeInstanceOf(ProtocolError);
    server.reply(jsonReply({ return_status: '1', encryption_data: SIG, orders_list: [{ order_no: 'A', amount: 'lots', currency: 'USD' }] }));
    await expect(client.queries.transactions({ orders: ['A'] })).rejects.toMatchObject({ code: 'ERR_PROTOCOL_MALFORMED' });
    server.reply({ status: 200, body: 'not json' });
    await expect(client.queries.transactions({ orders: ['A'] })).rejects.toMatchObject({ code: 'ERR_PROTOCOL_MALFORMED' });
  });

  it('refuses empty and malformed identifier lists before sending', async () => {
    const client = clientFor(server);
    await expect(client.queries.transactions({})).rejects.toBeInstanceOf(ValidationError);
    await expect(client.queries.transactions({ orders: ['A', 'B,C'] })).rejects.toMatchObject({ field: 'orders[1]' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('queries.refunds', () => {
  it('sends the refund search form and reads typed refunds', async () => {
    server.setFallback(jsonReply({
      merchant_id: MID, account_id: AID, return_status: '1', return_message: 'OK', encryption_data: SIG,
      refund_orders: [{
        transaction_id: 'TX-1', order_no: 'R-1', amount: '20.00', currency: 'EUR', refund_amount: '5.00', refund_status: '1',
        payment_status: '3100', refund_reference: 'MR-1', refund_reference_id: 'TX-1-01', refund_reason: 'damaged',
        refund_date: '20260201100000', refund_processing_date: '', refund_message: null,
      }],
    }));
    const result = await clientFor(server).queries.refunds({ refundOrders: ['R-1'], merchantRefunds: ['MR-1'] });
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/retrievalRefund', '/v1/retrievalRefund']);
    expect(server.requests[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(formOf(server.requests[0])).toEqual({ merchant_id: MID, account_id: AID, encryption_data: SIG, refund_orders: 'R-1' });
    expect(formOf(server.requests[1])).toMatchObject({ merchant_refunds: 'MR-1' });
    expect(result.refunds[0]).toMatchObject({
      transactionId: 'TX-1', orderNo: 'R-1', amount: 2000, refundAmount: 500, currency: 'EUR', refundStatus: '1',
      outcome: 'partially_refunded', refundReferenceId: 'TX-1-01', refundDate: new Date(Date.UTC(2026, 1, 1, 10)), refundProcessingDate: null,
    });
  });

  it('is refused as a whole when the gateway refuses it', async () => {
    server.setFallback(jsonReply({ code: 'I0016', source: 'ip', message: 'IP not registered' }, 403));
    const error: unknown = await clientFor(server).queries.refunds({ refundReferences: ['X'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    // I0016 is the IP allowlist: its own code, and a message saying what to do.
    expect(error).toMatchObject({ code: 'ERR_GATEWAY_IP_NOT_ALLOWED', gatewayCode: 'I0016', httpStatus: 403 });
    expect((error as GatewayError).message).toMatch(/allowlist/);
  });
});
