import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createSandbox } from '../../../server/sandbox/index.js';
import {
  ACCOUNT_ID, autosubmitForm, directRequest, formsOf, MERCHANT_ID, postForm, postJsonAsForm, readRespon, sign, startReceiver, startSandbox,
} from './support.js';

const files: string[] = [];
afterAll(() => {
  for (const file of files) for (const suffix of ['', '-journal']) rmSync(file + suffix, { force: true, recursive: true });
});

describe('persistence in a SQLite file', () => {
  it('keeps transactions, refunds and pending notifications across a restart', async () => {
    // In a directory that does not exist yet: the sandbox creates it, as the stores do.
    const dir = join(tmpdir(), `sandbox-persist-${randomUUID()}`);
    const file = join(dir, 'state', 'sandbox.sqlite');
    files.push(dir);
    let failing = true;
    const receiver = await startReceiver(() => (failing ? 500 : 200));
    try {
      const first = await startSandbox({ sqlitePath: file, notifyTimeScale: 1 });
      const request = directRequest({ notify_url: receiver.url });
      const respon = readRespon((await postJsonAsForm(first.baseUrl, '/v1/authorise', request)).text);
      const order = { transaction_id: respon.transaction_id ?? '', order_no: String(request.order_no), currency: 'USD', amount: 2500 };
      expect((await first.client.batch.refund([{ ...order, refund_amount: 500 }]))[0]?.ok).toBe(true);
      // The first attempt (answered 500) is made a little after the answer: closed before it, the
      // first life would leave the notification untried and the test would not see a retry. Both
      // deliveries (payment, refund) are waited for: they go out in parallel, either may end first.
      await vi.waitFor(() => {
        const tried = first.sandbox.ledger.notifications().filter((n) => n.orderNo === order.order_no && n.attempts.length > 0);
        expect(tried).toHaveLength(2);
      }, { timeout: 10_000, interval: 20 });
      await first.close();

      failing = false;
      const second = await startSandbox({ sqlitePath: file, notifyTimeScale: 0.001 });
      try {
        expect(second.sandbox.ledger.transaction(order.order_no)).toMatchObject({ paymentStatus: '3100', refundedAmount: 500, card: '424242******4242' });
        const query = await second.client.queries.transactions({ orders: [order.order_no] });
        expect(query.orders[0]).toMatchObject({ transactionId: order.transaction_id, outcome: 'partially_refunded' });
        const [next] = await second.client.batch.refund([{ ...order, refund_amount: 500 }]);
        expect(next?.element?.refund_reference_id).toBe(`${order.transaction_id}-02`);
        await second.sandbox.notifier.flush();
        const deliveries = second.sandbox.ledger.notifications().filter((n) => n.orderNo === order.order_no);
        expect(deliveries.every((n) => n.status === 'delivered')).toBe(true);
        expect(deliveries[0]?.attempts.map((a) => a.httpStatus)).toEqual(expect.arrayContaining([500, 200]));
      } finally {
        await second.close();
      }
    } finally {
      await receiver.close();
    }
  });
});

describe('mounted inside another app', () => {
  it('serves the API, issuer pages and inspector under the mount path', async () => {
    const sandbox = createSandbox({ env: {}, notifyTimeScale: 0.001 });
    const shop = express();
    shop.use('/gw', sandbox.app);
    const server = createServer(shop);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const reply = await postJsonAsForm(`${base}/gw`, '/v1/authorise', directRequest({ card: '4000000000003220', open3d: 'do3DS' }));
      const issuerUrl = readRespon(reply.text).issuer_url ?? '';
      expect(issuerUrl.startsWith(`${base}/gw/issuer/3ds/`)).toBe(true);
      const page = await postForm(base, new URL(issuerUrl).pathname, { return_url: 'https://shop.example/back' });
      const decision = formsOf(page.text)[0]?.action ?? '';
      expect(decision).toBe(`${issuerUrl}/decision`);
      const done = await postForm(base, new URL(decision).pathname, { decision: 'pass' });
      expect(autosubmitForm(done.text).fields.order_status).toBe('1');
      const checkout = sign('checkout', {
        merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, order_no: `MNT-${randomUUID().slice(0, 8)}`, currency: 'USD', amount: '1.00',
        items: 'A#,#A#,#1.00#,#1', shopper_id: 's', shopper_email: 'm@example.com',
      }) as Record<string, string>;
      expect(autosubmitForm((await postForm(`${base}/gw`, '/v1/checkout', checkout)).text).action).toBe(`${base}/gw/hosted/pay`);
      const inspector = await (await fetch(`${base}/gw/`)).text();
      expect(inspector).toContain('action="/gw/_sandbox/reset"');
    } finally {
      await new Promise<void>((resolve) => { server.close(() => { resolve(); }); server.closeAllConnections(); });
      await sandbox.close();
    }
  });

  it('uses publicBaseUrl in issuer_url when configured', async () => {
    const h = await startSandbox({ publicBaseUrl: 'https://sandbox.example/gateway/' });
    try {
      const reply = await postJsonAsForm(h.baseUrl, '/v1/authorise', directRequest({ card: '4000000000003220', open3d: 'do3DS' }));
      expect(readRespon(reply.text).issuer_url).toMatch(/^https:\/\/sandbox\.example\/gateway\/issuer\/3ds\//);
    } finally {
      await h.close();
    }
  });
});
