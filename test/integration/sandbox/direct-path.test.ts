/**
 * sandbox.listen() answers the /v1 operations without Express; the same app mounted or served
 * by a plain node server goes through Express. Both must give the same answer, header for header.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signMessage } from '../../../server/gateway/signing.js';
import { ACCOUNT_ID, directRequest, MERCHANT_ID, orderNo, readRespon, sign, startSandbox, type Harness } from './support.js';

let h: Harness;
let viaApp: Server;
let appUrl: string;

beforeAll(async () => {
  h = await startSandbox();
  viaApp = createServer(h.sandbox.app);
  await new Promise<void>((resolve) => viaApp.listen(0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(viaApp.address() as AddressInfo).port}`;
});
afterAll(async () => {
  viaApp.closeAllConnections();
  await new Promise<void>((resolve) => viaApp.close(() => { resolve(); }));
  await h.close();
});

interface Answer {
  status: number;
  /** Raw header lines in order, without Date. */
  headers: string[];
  body: string;
}

/** A POST with node:http, so the raw header lines (case and order) are visible. */
function post(base: string, path: string, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const headers: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          if (res.rawHeaders[i] !== 'Date') headers.push(`${res.rawHeaders[i] ?? ''}: ${res.rawHeaders[i + 1] ?? ''}`);
        }
        resolve({ status: res.statusCode ?? 0, headers, body: text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const identity = { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID };
const querySignature = signMessage('retrievalTrans', identity, 'sandbox-sign-key-not-secret');

describe('the /v1 operations served by listen() without Express', () => {
  it.each([
    ['a bad signature', '/v1/authorise', JSON.stringify({ ...identity, order_no: 'X-1', encryption_data: 'a'.repeat(64) })],
    ['an unknown account', '/v1/authorise', JSON.stringify({ merchant_id: '1', account_id: '2' })],
    ['an empty body', '/v1/capture', ''],
    ['unreadable JSON', '/v1/authorise', '{"merchant_id":'],
    ['a query', '/v1/retrievalTrans', new URLSearchParams({ ...identity, encryption_data: querySignature, orders: 'NONE-1' }).toString()],
    ['a query string on the path', '/v1/retrievalTrans?x=1', new URLSearchParams({ ...identity, encryption_data: querySignature }).toString()],
    ['a path only Express matches', '/V1/Authorise/', '{}'],
    ['an unknown operation', '/v1/nothing', '{}'],
  ])('answers %s exactly as the Express app does', async (_what, path, body) => {
    const direct = await post(h.baseUrl, path, body);
    const express = await post(appUrl, path, body);
    expect(direct).toEqual(express);
    expect(direct.headers).toContain('Cache-Control: no-store');
  });

  it('answers a payment with the same headers and an equivalent signed respon', async () => {
    const [first, second] = [directRequest(), directRequest()];
    const direct = await post(h.baseUrl, '/v1/authorise', JSON.stringify(first));
    const express = await post(appUrl, '/v1/authorise', JSON.stringify(second));
    const names = (a: Answer): string[] => a.headers.map((line) => line.slice(0, line.indexOf(':')));
    expect(names(direct)).toEqual(names(express));
    // no-store answers: nothing to revalidate, so no ETag is hashed for them either way.
    expect(names(direct)).not.toContain('ETag');
    expect(direct.status).toBe(200);
    expect(readRespon(direct.body)).toMatchObject({ order_no: first.order_no, order_status: '1', result_info: '0000:Success' });
  });

  it('answers a batch the same way whichever path it took', async () => {
    const orders = [{ transaction_id: 'SBX-NOPE', order_no: orderNo(), currency: 'USD', amount: '1.00' }];
    const body = JSON.stringify(sign('capture', { ...identity, capture_orders: orders }));
    const direct = await post(h.baseUrl, '/v1/capture', body);
    expect(direct).toEqual(await post(appUrl, '/v1/capture', body));
    expect(JSON.parse(direct.body)).toMatchObject({ capture_orders: [{ capture_status: '0', error_message: 'Transaction SBX-NOPE not found' }] });
  });

  it.each([['listen()', () => h.baseUrl], ['the Express app', () => appUrl]])('refuses a streamed body over 1 MiB with 413 through %s', async (_what, base) => {
    const url = new URL('/v1/authorise', base());
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        res.on('end', () => { resolve(res.statusCode ?? 0); });
      });
      req.on('error', reject);
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      const pump = (): void => {
        while (sent < 20) {
          sent += 1;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      pump();
    });
    expect(status).toBe(413);
  });

  it('leaves requests to Express once the app asks for what only Express does', async () => {
    h.sandbox.app.enable('x-powered-by');
    try {
      const answer = await post(h.baseUrl, '/v1/authorise', '{}');
      expect(answer.headers[0]).toBe('X-Powered-By: Express');
    } finally {
      h.sandbox.app.disable('x-powered-by');
    }
  });
});
