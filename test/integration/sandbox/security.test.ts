import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../../server/logging.js';
import {
  ACCOUNT_ID, autosubmitForm, directRequest, FUTURE_YEAR, MERCHANT_ID, postForm, postJsonAsForm, postRaw, readRespon, sign,
  startSandbox, type Harness,
} from './support.js';
import { containsStandalone } from '../../helpers/secrets.js';

const PATHS = ['authorise', 'checkout', 'retrievalTrans', 'retrievalRefund', 'capture', 'cancel', 'review', 'refund', 'payout', 'cancelsubscription', 'optimise', 'updateOrders'];

let h: Harness;
beforeAll(async () => {
  h = await startSandbox();
});
afterAll(async () => {
  await h.close();
});

/** JSON under the samples' form label, except cancelsubscription: all its samples are application/json. */
const post = (path: string, body: Record<string, unknown>): ReturnType<typeof postJsonAsForm> =>
  path === 'cancelsubscription' ? postRaw(h.baseUrl, `/v1/${path}`, JSON.stringify(body), 'application/json') : postJsonAsForm(h.baseUrl, `/v1/${path}`, body);

describe('authentication', () => {
  it.each(PATHS)('/v1/%s refuses a wrong encryption_data with 400 I0013', async (path) => {
    const reply = await post(path, { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, order_no: 'X', encryption_data: 'ab'.repeat(32) });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toMatchObject({ code: 'I0013', source: 'encryption_data', message: expect.stringContaining('encryption_data') });
  });

  it.each(PATHS)('/v1/%s answers an unknown account with 404 {code, source, message}', async (path) => {
    const reply = await post(path, sign(path === 'retrievalTrans' ? 'retrievalTrans' : 'authorise', { merchant_id: '999999', account_id: '999999999' }));
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.text)).toMatchObject({ code: 'I0404', source: 'account_id', message: expect.any(String) });
  });

  it('a signature made with another key is refused and charges nothing', async () => {
    const request = directRequest();
    const forged = sign('authorise', { ...request, encryption_data: undefined }, 'some-other-key');
    const reply = await postJsonAsForm(h.baseUrl, '/v1/authorise', forged);
    expect(reply.status).toBe(400);
    expect(h.sandbox.ledger.transaction(String(request.order_no))).toBeUndefined();
  });

  it('accepts upper-case hex signatures', async () => {
    const request = directRequest();
    const reply = await postJsonAsForm(h.baseUrl, '/v1/authorise', { ...request, encryption_data: String(request.encryption_data).toUpperCase() });
    expect(reply.status).toBe(200);
  });
});

describe('registered caller IPs', () => {
  it('answers queries from unregistered IPs with 403 I0016 naming the IP', async () => {
    const closed = await startSandbox({ queryAllowedIps: [] });
    try {
      for (const path of ['retrievalTrans', 'retrievalRefund']) {
        const fields = sign(path === 'retrievalTrans' ? 'retrievalTrans' : 'retrievalRefund', { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID }) as Record<string, string>;
        const reply = await postForm(closed.baseUrl, `/v1/${path}`, fields);
        expect(reply.status).toBe(403);
        const body = JSON.parse(reply.text) as { code: string; source: string; message: string };
        expect(body).toMatchObject({ code: 'I0016', source: 'ip' });
        expect(body.message).toContain('127.0.0.1');
      }
    } finally {
      await closed.close();
    }
  });
});

describe('bodies', () => {
  it('accepts correctly labelled JSON, genuine forms and multipart', async () => {
    const json = await postRaw(h.baseUrl, '/v1/authorise', JSON.stringify(directRequest()), 'application/json');
    expect(readRespon(json.text).order_status).toBe('1');
    const query = sign('retrievalTrans', { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID }) as Record<string, string>;
    const multipart = new FormData();
    for (const [k, v] of Object.entries(query)) multipart.append(k, v);
    const reply = await postRaw(h.baseUrl, '/v1/retrievalTrans', multipart, null);
    expect(reply.status).toBe(200);
    // The query reply carries no encryption_data, as the published query sample.
    const body = JSON.parse(reply.text) as Record<string, unknown>;
    expect(body).toMatchObject({ return_status: '1' });
    expect(body).not.toHaveProperty('encryption_data');
  });

  it('takes cancelsubscription only as application/json, as every published sample sends it', async () => {
    const request = sign('cancelsubscription', { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, recurring_id: 'RC-NONE' });
    const asForm = await postJsonAsForm(h.baseUrl, '/v1/cancelsubscription', request);
    expect(asForm.status).toBe(400);
    expect(JSON.parse(asForm.text)).toMatchObject({ code: 'I0001', source: 'content-type' });
    const asJson = await postRaw(h.baseUrl, '/v1/cancelsubscription', JSON.stringify(request), 'application/json');
    expect(asJson.status).toBe(200);
    expect(JSON.parse(asJson.text)).toMatchObject({ cancel_status: '0', error_message: 'Subscription RC-NONE not found' });
  });

  it('reads nested values of a genuine form body as JSON (a form-encoded capture)', async () => {
    const manual = await startSandbox({ captureMode: 'manual' });
    try {
      const request = directRequest();
      const respon = readRespon((await postJsonAsForm(manual.baseUrl, '/v1/authorise', request)).text);
      const orders = [{ transaction_id: respon.transaction_id, order_no: request.order_no, currency: 'USD', amount: '25.00' }];
      const signed = sign('capture', { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, capture_orders: orders });
      const reply = await postForm(manual.baseUrl, '/v1/capture', { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, capture_orders: JSON.stringify(orders), encryption_data: String(signed.encryption_data) });
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.text).capture_orders[0].capture_status).toBe('1');
      expect(manual.sandbox.ledger.transaction(String(request.order_no))?.paymentStatus).toBe('3000');
    } finally {
      await manual.close();
    }
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const reply = await postRaw(h.baseUrl, '/v1/authorise', JSON.stringify({ note: 'x'.repeat(1_100_000) }), 'application/x-www-form-urlencoded');
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.text)).toMatchObject({ source: 'body' });
  });

  it('refuses unreadable JSON with 400', async () => {
    const reply = await postRaw(h.baseUrl, '/v1/capture', '{"merchant_id":', 'application/x-www-form-urlencoded');
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toMatchObject({ source: 'body' });
  });
});

describe('card data never kept', () => {
  const CARDS = ['4242424242424242', '4000000000003220', '4000000000000002', '4000000000009995', '4000000000000069', '4000000000009235', '4000000000000119'];
  const CVV = '9731';

  it('leaves no card number or CVV in the ledger, the SQLite file, the logs or the pages', async () => {
    const file = join(tmpdir(), `sandbox-scan-${randomUUID()}.sqlite`);
    const logged: string[] = [];
    const record = (obj: Record<string, unknown>, msg?: string): void => { logged.push(JSON.stringify(obj) + (msg ?? '')); };
    const logger: Logger = { debug: record, info: record, warn: record, error: record };
    const s = await startSandbox({ sqlitePath: file, logger });
    const pages: string[] = [];
    try {
      for (const card of CARDS) {
        for (const open3d of ['no3DS', 'do3DS']) {
          const reply = await postJsonAsForm(s.baseUrl, '/v1/authorise', directRequest({ card, open3d, security_code: CVV, token_flag: 'YES' }));
          pages.push(reply.text);
          const issuer = readRespon(reply.text).issuer_url;
          if (issuer !== undefined) {
            pages.push((await postForm(s.baseUrl, new URL(issuer).pathname, {})).text);
            pages.push((await postForm(s.baseUrl, `${new URL(issuer).pathname}/decision`, { decision: 'pass' })).text);
          }
        }
        // the hosted page too, including a refused attempt
        const checkout = sign('checkout', {
          merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, order_no: `SCAN-${randomUUID().slice(0, 8)}`, currency: 'USD', amount: '5.00',
          items: 'X#,#X#,#5.00#,#1', shopper_id: 's', shopper_email: 's@example.com', return_url: 'https://shop.example/r',
        }) as Record<string, string>;
        const page = await postForm(s.baseUrl, '/hosted/pay', autosubmitForm((await postForm(s.baseUrl, '/v1/checkout', checkout)).text).fields);
        const pay = /action="([^"]+\/hosted\/pay\/[^"/]+)"/.exec(page.text)?.[1] ?? '';
        pages.push((await postForm(s.baseUrl, new URL(pay).pathname, { card: card.slice(0, 15) + '0', expiration_month: '10', expiration_year: FUTURE_YEAR, security_code: CVV })).text);
        pages.push((await postForm(s.baseUrl, new URL(pay).pathname, { card, expiration_month: '10', expiration_year: FUTURE_YEAR, security_code: CVV })).text);
      }
      pages.push(await (await fetch(`${s.baseUrl}/`)).text());
      await s.sandbox.notifier.flush();
      const ledger = JSON.stringify({
        t: s.sandbox.ledger.transactions(), r: s.sandbox.ledger.refunds(), n: s.sandbox.ledger.notifications(), s: s.sandbox.ledger.subscriptions(),
      });
      expect(ledger).toContain('424242******4242');
      await s.close();
      const bytes = readFileSync(file).toString('latin1');
      expect(bytes).toContain('424242******4242');
      for (const [what, text] of [['ledger', ledger], ['sqlite', bytes], ['logs', logged.join('\n')], ['pages', pages.join('\n')]] as const) {
        for (const card of CARDS) expect(text.includes(card), `${card} in ${what}`).toBe(false);
        expect(containsStandalone(text, CVV), `CVV in ${what}`).toBe(false);
        expect(text.includes('security_code":"'), `security_code value in ${what}`).toBe(false);
      }
    } finally {
      await s.close();
      rmSync(file, { force: true });
      rmSync(`${file}-journal`, { force: true });
    }
  });
});
