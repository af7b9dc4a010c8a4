import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError, ProtocolError } from '../../../server/errors.js';
import type { BatchOrderInput } from '../../../server/gateway/operations/batch.js';
import { jsonReply, type RecordedRequest } from '../../helpers/recording-server.js';
import { AID, clientFor, jsonOf, MID, sha, useRecordingServer } from './support.js';

const server = useRecordingServer();
afterEach(() => {
  // Every operation of the interface is a POST.
  expect(server.requests.map((r) => r.method).filter((m) => m !== 'POST')).toEqual([]);
});

const orders = (n: number, prefix = 'B'): BatchOrderInput[] =>
  Array.from({ length: n }, (_, i) => ({ transaction_id: `${prefix}T${i}`, order_no: `${prefix}O${i}`, currency: 'USD', amount: 1000 + i }));

type Elements = Record<string, unknown>[];

/** Answers a batch with every element approved (status field `statusKey`), echoing the signature. */
const approveAll = (arrayKey: string, statusKey: string, extra: Record<string, unknown> = {}) => (request: RecordedRequest) => {
  const body = jsonOf(request);
  const elements = (body[arrayKey] as Elements).map((e) => ({ ...e, [statusKey]: '1', error_message: '', ...extra }));
  return jsonReply({ merchant_id: MID, account_id: AID, return_status: '1', return_message: 'OK', encryption_data: body.encryption_data, [arrayKey]: elements });
};

const txIds = (request: RecordedRequest | undefined, arrayKey: string): string[] =>
  (jsonOf(request)[arrayKey] as Elements).map((e) => String(e.transaction_id));

describe('batch operations', () => {
  it('captures: JSON under the form content type, signed over every transaction id', async () => {
    server.reply(approveAll('capture_orders', 'capture_status'));
    const input = orders(2);
    const results = await clientFor(server).batch.capture(input);
    const [request] = server.requests;
    expect(request?.path).toBe('/v1/capture');
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(jsonOf(request)).toEqual({
      merchant_id: MID, account_id: AID, encryption_data: sha([MID, AID, 'BT0', 'BT1']),
      capture_orders: [
        { transaction_id: 'BT0', order_no: 'BO0', currency: 'USD', amount: '10.00' },
        { transaction_id: 'BT1', order_no: 'BO1', currency: 'USD', amount: '10.01' },
      ],
    });
    expect(results.map((r) => [r.input, r.ok, r.status, r.message, r.error])).toEqual([
      [input[0], true, '1', null, null],
      [input[1], true, '1', null, null],
    ]);
    expect(results[1]?.element).toMatchObject({ transaction_id: 'BT1', capture_status: '1' });
  });

  it('cancels and reviews with their own arrays and signatures', async () => {
    const client = clientFor(server);
    server.reply(approveAll('cancel_orders', 'cancel_status'));
    const cancelled = await client.batch.cancel(orders(1, 'C'));
    expect(server.requests[0]?.path).toBe('/v1/cancel');
    expect(jsonOf(server.requests[0]).encryption_data).toBe(sha([MID, AID, 'CT0']));
    expect(cancelled[0]).toMatchObject({ ok: true, status: '1' });

    server.reply(approveAll('review_orders', 'review_status'));
    const reviewed = await client.batch.review(orders(2, 'V').map((o) => ({ ...o, review_flag: '1' })));
    expect(server.requests[1]?.path).toBe('/v1/review');
    expect(server.requests[1]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(jsonOf(server.requests[1]).review_orders).toEqual([
      { transaction_id: 'VT0', order_no: 'VO0', currency: 'USD', amount: '10.00', review_flag: '1' },
      { transaction_id: 'VT1', order_no: 'VO1', currency: 'USD', amount: '10.01', review_flag: '1' },
    ]);
    expect(jsonOf(server.requests[1]).encryption_data).toBe(sha([MID, AID, 'VT0', 'VT1']));
    expect(reviewed.every((r) => r.ok)).toBe(true);
  });

  it('refunds with refund amounts in the order currency and reads refund_message', async () => {
    server.reply(approveAll('refund_orders', 'refund_status', { refund_message: 'V0000:OK', refund_reference_id: 'x-01' }));
    const results = await clientFor(server).batch.refund([
      { transaction_id: 'RT1', order_no: 'RO1', currency: 'JPY', amount: 5000, refund_amount: 1200, refund_reason: 'damaged' },
      { transaction_id: 'RT2', order_no: 'RO2', currency: 'KWD', amount: 10_000, refund_amount: 2_500 },
    ]);
    expect(server.requests[0]?.path).toBe('/v1/refund');
    expect(server.requests[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(jsonOf(server.requests[0])).toEqual({
      merchant_id: MID, account_id: AID, encryption_data: sha([MID, AID, 'RT1', 'RT2']),
      refund_orders: [
        { transaction_id: 'RT1', order_no: 'RO1', currency: 'JPY', amount: '5000', refund_amount: '1200', refund_reason: 'damaged' },
        { transaction_id: 'RT2', order_no: 'RO2', currency: 'KWD', amount: '10.000', refund_amount: '2.500' },
      ],
    });
    expect(results.map((r) => [r.ok, r.message])).toEqual([[true, 'V0000:OK'], [true, 'V0000:OK']]);
  });

  it('splits 120 captures into 50, 50 and 20 and returns results in input order', async () => {
    server.setFallback((request) => {
      const body = jsonOf(request);
      // Answer elements in reverse order: matching must go by transaction id.
      const elements = [...(body.capture_orders as Elements)].reverse().map((e) => ({ ...e, capture_status: '1', error_message: '' }));
      return jsonReply({ return_status: '1', return_message: 'OK', encryption_data: body.encryption_data, capture_orders: elements });
    });
    const input = orders(120);
    const results = await clientFor(server).batch.capture(input);
    expect(server.requests.map((r) => txIds(r, 'capture_orders').length).sort((a, b) => b - a)).toEqual([50, 50, 20]);
    for (const r of server.requests) expect(jsonOf(r).encryption_data).toBe(sha([MID, AID, ...txIds(r, 'capture_orders')]));
    expect(results).toHaveLength(120);
    results.forEach((r, i) => {
      expect(r.input).toBe(input[i]);
      expect(r.element?.transaction_id).toBe(`BT${i}`);
      expect(r.ok).toBe(true);
    });
  });

  it('reports a failed chunk on each of its orders and keeps the others', async () => {
    server.setFallback((request) => {
      if (txIds(request, 'capture_orders').includes('BT60')) return jsonReply({ code: 'I0500', message: 'busy' }, 503);
      return approveAll('capture_orders', 'capture_status')(request);
    });
    const results = await clientFor(server).batch.capture(orders(120));
    expect(server.requests).toHaveLength(3);
    results.forEach((r, i) => {
      if (i >= 50 && i < 100) {
        expect(r).toMatchObject({ ok: false, status: null, element: null });
        expect(r.error).toBeInstanceOf(GatewayError);
        expect(r.error?.code).toBe('ERR_GATEWAY_HTTP');
      } else {
        expect(r).toMatchObject({ ok: true, error: null });
      }
    });
  });

  it('reports per-order refusals and orders missing from the reply', async () => {
    server.reply((request) => {
      const body = jsonOf(request);
      return jsonReply({
        return_status: '1', encryption_data: body.encryption_data,
        capture_orders: [{ transaction_id: 'BT0', capture_status: '0', error_message: 'already captured' }],
      });
    });
    const results = await clientFor(server).batch.capture(orders(2));
    expect(results[0]).toMatchObject({ ok: false, status: '0', message: 'already captured', error: null });
    expect(results[1]).toMatchObject({ ok: false, status: null, element: null });
    expect(results[1]?.error).toBeInstanceOf(ProtocolError);
  });

  it('reports a refused batch, a wrong echo and a failed return_status on every order', async () => {
    const client = clientFor(server);
    server.reply(jsonReply({ return_status: '0', return_message: 'refused', encryption_data: sha([MID, AID, 'BT0']) }));
    expect((await client.batch.cancel(orders(1)))[0]?.error?.code).toBe('ERR_GATEWAY_STATUS');
    server.reply(jsonReply({ return_status: '1', encryption_data: '0'.repeat(64), cancel_orders: [] }));
    expect((await client.batch.cancel(orders(1)))[0]?.error?.code).toBe('ERR_PROTOCOL_SIGNATURE');
    server.reply(jsonReply({ code: 'I0013', source: 'encryption_data', message: 'bad signature' }, 400));
    expect((await client.batch.cancel(orders(1)))[0]?.error?.code).toBe('ERR_GATEWAY_BAD_SIGNATURE');
  });

  it('validates every order before sending any', async () => {
    const input = orders(120);
    input[77] = { ...input[77]!, amount: 12.5 };
    await expect(clientFor(server).batch.capture(input)).rejects.toMatchObject({ code: 'ERR_VALIDATION', field: 'orders[77].amount' });
    await expect(clientFor(server).batch.refund([{ ...orders(1)[0]!, refund_amount: 0 }])).rejects.toMatchObject({ field: 'orders[0].refund_amount' });
    await expect(clientFor(server).batch.capture([])).rejects.toMatchObject({ field: 'orders' });
    expect(server.requests).toHaveLength(0);
  });
});
