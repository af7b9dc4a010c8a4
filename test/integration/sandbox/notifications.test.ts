import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyMessage } from '../../../server/gateway/signing.js';
import { nominalSchedule } from '../../../server/sandbox/retry.js';
import {
  directRequest, formsOf, postJsonAsForm, readRespon, SIGN_KEY, startReceiver, startSandbox, type Harness, type Receiver,
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

async function payTo(url: string) {
  const request = directRequest({ notify_url: url });
  const respon = readRespon((await postJsonAsForm(h.baseUrl, '/v1/authorise', request)).text);
  await h.sandbox.notifier.flush();
  return { orderNo: String(request.order_no), transactionId: respon.transaction_id ?? '' };
}

const control = (path: string, body: unknown = {}, headers: Record<string, string> = {}) =>
  fetch(`${h.baseUrl}/_sandbox${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), redirect: 'manual' });

describe('delivery and retries', () => {
  it('retries a failing notify_url until it answers 2xx, recording every attempt', async () => {
    const flaky = await startReceiver((n) => (n < 2 ? 500 : 204));
    try {
      const { orderNo } = await payTo(flaky.url);
      expect(flaky.received).toHaveLength(3);
      expect(new Set(flaky.received.map((r) => JSON.stringify(r.fields))).size).toBe(1);
      const delivery = h.sandbox.ledger.notifications().find((n) => n.orderNo === orderNo);
      expect(delivery?.status).toBe('delivered');
      expect(delivery?.attempts.map((a) => a.httpStatus)).toEqual([500, 500, 204]);
      expect(delivery?.nextAttemptAt).toBeNull();
    } finally {
      await flaky.close();
    }
  });

  it('retries network errors and gives up after the whole schedule', async () => {
    const quick = await startSandbox({ notifyTimeScale: 0.000_01 });
    const dead = await startReceiver(() => 503);
    try {
      const request = directRequest({ notify_url: dead.url });
      await postJsonAsForm(quick.baseUrl, '/v1/authorise', request);
      await quick.sandbox.notifier.flush();
      const delivery = quick.sandbox.ledger.notifications()[0];
      expect(delivery?.status).toBe('failed');
      expect(delivery?.attempts).toHaveLength(nominalSchedule().length + 1);
      expect(dead.received).toHaveLength(nominalSchedule().length + 1);
    } finally {
      await dead.close();
      await quick.close();
    }
  });

  it('records a network error as an attempt without an HTTP status', async () => {
    const gone = await startReceiver();
    const url = gone.url;
    await gone.close();
    const quick = await startSandbox({ notifyTimeScale: 0.000_01 });
    try {
      await postJsonAsForm(quick.baseUrl, '/v1/authorise', directRequest({ notify_url: url }));
      await quick.sandbox.notifier.flush();
      const delivery = quick.sandbox.ledger.notifications()[0];
      expect(delivery?.attempts[0]).toMatchObject({ httpStatus: null, error: 'fetch failed' });
      expect(delivery?.status).toBe('failed');
    } finally {
      await quick.close();
    }
  });
});

describe('the notification request', () => {
  it('is the form POST the receiver always got: same headers, same order, a redirect is an answer', async () => {
    const seen: { headers: string[]; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        seen.push({ headers: req.rawHeaders.filter((_, i) => i % 2 === 0), body });
        res.writeHead(302, { Location: '/elsewhere' }).end('moved');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const quick = await startSandbox({ notifyTimeScale: 0.000_01 });
    try {
      const request = directRequest({ notify_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify?shop=1` });
      await postJsonAsForm(quick.baseUrl, '/v1/authorise', request);
      await quick.sandbox.notifier.flush();
      expect(seen[0]?.headers).toEqual(['host', 'connection', 'content-type', 'accept', 'accept-language', 'sec-fetch-mode', 'user-agent', 'accept-encoding', 'content-length']);
      expect(new URLSearchParams(seen[0]?.body).get('order_no')).toBe(request.order_no);
      // Not followed: a redirect is a non-2xx answer, retried on the schedule.
      expect(quick.sandbox.ledger.notifications()[0]?.attempts[0]).toMatchObject({ httpStatus: 302, error: null });
      expect(seen).toHaveLength(nominalSchedule().length + 1);
    } finally {
      await quick.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    }
  });

  it('records an unreadable notify_url as fetch did', async () => {
    const quick = await startSandbox({ notifyTimeScale: 0.000_01 });
    try {
      await postJsonAsForm(quick.baseUrl, '/v1/authorise', directRequest({ notify_url: 'http://[bad/notify' }));
      await quick.sandbox.notifier.flush();
      expect(quick.sandbox.ledger.notifications()[0]?.attempts[0]).toMatchObject({ httpStatus: null, error: 'Failed to parse URL from http://[bad/notify' });
    } finally {
      await quick.close();
    }
  });
});

describe('control API', () => {
  it('resends, sends twice and sends with a bad signature', async () => {
    const { orderNo } = await payTo(receiver.url);
    const original = h.sandbox.ledger.notifications().find((n) => n.orderNo === orderNo)!;
    expect((await control(`/notifications/${original.id}/resend`)).status).toBe(200);
    expect((await control(`/notifications/${original.id}/twice`)).status).toBe(200);
    expect((await control(`/notifications/${original.id}/bad-signature`)).status).toBe(200);
    const got = receiver.received.filter((r) => r.fields.order_no === orderNo).map((r) => r.fields);
    expect(got).toHaveLength(5);
    expect(got.map((f) => verifyMessage('notification', f, f.encryption_data, [SIGN_KEY]))).toEqual([true, true, true, true, false]);
    expect(got[4]?.encryption_data).toMatch(/^[0-9a-f]{64}$/);
    expect(h.sandbox.ledger.notifications().filter((n) => n.orderNo === orderNo).map((n) => n.origin)).toEqual(['state-change', 'resend', 'twice', 'twice', 'bad-signature']);
  });

  it('delivers a batch in shuffled order', async () => {
    const paid = [await payTo(receiver.url), await payTo(receiver.url), await payTo(receiver.url)];
    const ids = h.sandbox.ledger.notifications().filter((n) => paid.some((p) => p.orderNo === n.orderNo)).map((n) => n.id);
    const before = receiver.received.length;
    const reply = await control('/notifications/shuffle', { ids });
    expect(reply.status).toBe(200);
    const sent = (await reply.json()) as { sent: { orderNo: string }[] };
    expect(receiver.received.slice(before).map((r) => r.fields.order_no)).toEqual(sent.sent.map((s) => s.orderNo));
    expect([...sent.sent.map((s) => s.orderNo)].sort()).toEqual(paid.map((p) => p.orderNo).sort());
  });

  it('raises a chargeback that is recorded and notified', async () => {
    const { orderNo, transactionId } = await payTo(receiver.url);
    const reply = await control(`/transactions/${transactionId}/chargeback`, { reason: 'Item not received' });
    expect(reply.status).toBe(200);
    await h.sandbox.notifier.flush();
    expect(h.sandbox.ledger.transaction(orderNo)).toMatchObject({ paymentStatus: '7000', chargebackReason: 'Item not received' });
    const notice = receiver.received.filter((r) => r.fields.order_no === orderNo).at(-1)?.fields;
    expect(notice).toMatchObject({ webhooks_type: 'chargeback', chargeback_reason: 'Item not received', payment_status: '7000' });
    expect(verifyMessage('notification', notice ?? {}, notice?.encryption_data, [SIGN_KEY])).toBe(true);
  });

  it('refuses cross-origin form posts', async () => {
    const reply = await control('/reset', {}, { origin: 'https://evil.example' });
    expect(reply.status).toBe(403);
    expect(h.sandbox.ledger.transactions().length).toBeGreaterThan(0);
  });

  it('lists state as JSON', async () => {
    const state = (await (await fetch(`${h.baseUrl}/_sandbox/state`)).json()) as Record<string, unknown[]>;
    expect(Object.keys(state).sort()).toEqual(['faults', 'notifications', 'payouts', 'refunds', 'subscriptions', 'tokens', 'transactions', 'updateOrders']);
    expect(state.transactions?.length).toBe(h.sandbox.ledger.transactions().length);
  });
});

describe('inspector', () => {
  it('lists transactions and deliveries with attempts, under a strict CSP, with working buttons', async () => {
    const { orderNo } = await payTo(receiver.url);
    const page = await fetch(`${h.baseUrl}/`);
    const html = await page.text();
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/style-src 'nonce-[^']+'/);
    expect(csp).toContain("form-action 'self'");
    expect(html).toContain('name="viewport"');
    expect(html).toContain(orderNo);
    expect(html).toMatch(/HTTP 200/);
    expect(html).not.toMatch(/\son[a-z]+="/);
    const delivery = h.sandbox.ledger.notifications().find((n) => n.orderNo === orderNo)!;
    const resend = formsOf(html).find((f) => f.action === `/_sandbox/notifications/${delivery.id}/resend`);
    expect(resend).toBeDefined();
    const clicked = await fetch(`${h.baseUrl}${resend?.action ?? ''}`, { method: 'POST', headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' }, body: '', redirect: 'manual' });
    expect(clicked.status).toBe(303);
    expect(clicked.headers.get('location')).toBe('/');
    expect(h.sandbox.ledger.notifications().filter((n) => n.orderNo === orderNo)).toHaveLength(2);
  });

  it('reset forgets everything', async () => {
    const other = await startSandbox();
    try {
      await postJsonAsForm(other.baseUrl, '/v1/authorise', directRequest());
      expect((await fetch(`${other.baseUrl}/_sandbox/reset`, { method: 'POST' })).status).toBe(200);
      expect(other.sandbox.ledger.transactions()).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
