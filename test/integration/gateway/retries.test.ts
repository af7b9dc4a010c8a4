import { afterEach, describe, expect, it } from 'vitest';
import { TransportError } from '../../../server/errors.js';
import { jsonReply } from '../../helpers/recording-server.js';
import { AID, clientFor, closedPortUrl, directInput, MID, sha, useRecordingServer } from './support.js';

const server = useRecordingServer();
afterEach(() => {
  // Every operation of the interface is a POST.
  expect(server.requests.map((r) => r.method).filter((m) => m !== 'POST')).toEqual([]);
});

/** A fetch that counts how many requests the client really sends. */
function countingFetch(): { fetch: typeof fetch; calls: () => number } {
  let n = 0;
  return {
    fetch: (input, init) => {
      n++;
      return fetch(input, init);
    },
    calls: () => n,
  };
}

const TIMEOUT_MS = 1000;

const order = { transaction_id: 'T1', order_no: 'O1', currency: 'USD', amount: 1000 };
const SIG = sha([MID, AID]);
const okQuery = jsonReply({ return_status: '1', return_message: 'OK', encryption_data: SIG, orders_list: [] });

describe('money-moving operations are sent exactly once', () => {
  for (const failure of ['timeout', '500'] as const) {
    const reply = failure === 'timeout' ? { hang: true as const } : { status: 500, body: 'oops' };

    it(`authorise on ${failure}`, async () => {
      server.setFallback(reply);
      const counter = countingFetch();
      const error: unknown = await clientFor(server, { timeoutMs: TIMEOUT_MS, fetch: counter.fetch }).payments.authorise(directInput(`ONCE-${failure}`)).catch((e: unknown) => e);
      expect(counter.calls()).toBe(1);
      await server.waitForRequests(1);
      expect(server.requests).toHaveLength(1);
      if (failure === 'timeout') expect(error).toMatchObject({ code: 'ERR_TRANSPORT_TIMEOUT', outcomeUnknown: true });
      else expect(error).toMatchObject({ code: 'ERR_GATEWAY_HTTP', httpStatus: 500 });
    });

    it(`capture on ${failure}`, async () => {
      server.setFallback(reply);
      const counter = countingFetch();
      const [result] = await clientFor(server, { timeoutMs: TIMEOUT_MS, fetch: counter.fetch }).batch.capture([order]);
      expect(counter.calls()).toBe(1);
      await server.waitForRequests(1);
      expect(server.requests).toHaveLength(1);
      expect(result?.ok).toBe(false);
      if (failure === 'timeout') {
        expect(result?.error).toBeInstanceOf(TransportError);
        expect(result?.error).toMatchObject({ outcomeUnknown: true });
        expect(result?.error?.message).toMatch(/outcome is unknown/);
      }
    });

    it(`refund on ${failure}`, async () => {
      server.setFallback(reply);
      const counter = countingFetch();
      const [result] = await clientFor(server, { timeoutMs: TIMEOUT_MS, fetch: counter.fetch }).batch.refund([{ ...order, refund_amount: 500 }]);
      expect(counter.calls()).toBe(1);
      await server.waitForRequests(1);
      expect(server.requests).toHaveLength(1);
      expect(result?.ok).toBe(false);
    });

    it(`payout on ${failure}`, async () => {
      server.setFallback(reply);
      const counter = countingFetch();
      await expect(
        clientFor(server, { timeoutMs: TIMEOUT_MS, fetch: counter.fetch }).payouts.create({ beneficiary_id: 'B1', payment_amount: 100, payment_currency: 'EUR' }),
      ).rejects.toBeDefined();
      expect(counter.calls()).toBe(1);
      await server.waitForRequests(1);
      expect(server.requests).toHaveLength(1);
    });
  }
});

describe('reads are retried', () => {
  it('re-sends a query after a 5xx and a timeout, then succeeds', async () => {
    server.reply({ status: 503, body: 'busy' }, { hang: true }, okQuery);
    const counter = countingFetch();
    const result = await clientFor(server, { timeoutMs: TIMEOUT_MS, fetch: counter.fetch }).queries.transactions({ orders: ['A'] });
    expect(counter.calls()).toBe(3);
    await server.waitForRequests(3);
    expect(server.requests).toHaveLength(3);
    expect(new Set(server.requests.map((r) => r.body)).size).toBe(1);
    expect(result.returnStatus).toBe('1');
  });

  it('gives up after the configured attempts with the last error', async () => {
    server.setFallback({ status: 502, body: 'bad gateway' });
    await expect(clientFor(server, { readRetries: { attempts: 2, baseDelayMs: 1 } }).queries.refunds({ refundOrders: ['A'] }))
      .rejects.toMatchObject({ code: 'ERR_GATEWAY_HTTP', httpStatus: 502 });
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a read the gateway refused with a 4xx', async () => {
    server.setFallback(jsonReply({ code: 'I0001', source: 'orders', message: 'bad' }, 400));
    await expect(clientFor(server).queries.transactions({ orders: ['A'] })).rejects.toMatchObject({ code: 'ERR_GATEWAY_INVALID_INPUT' });
    expect(server.requests).toHaveLength(1);
  });

  it('maps a refused connection to ERR_TRANSPORT_CONNECTION; a read is safe to retry', async () => {
    const client = clientFor(server, { baseUrl: await closedPortUrl() });
    const error: unknown = await client.queries.transactions({ orders: ['A'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'ERR_TRANSPORT_CONNECTION', outcomeUnknown: false });
    await expect(client.payments.authorise(directInput('REFUSED-1'))).rejects.toMatchObject({ code: 'ERR_TRANSPORT_CONNECTION', outcomeUnknown: true });
  });
});
