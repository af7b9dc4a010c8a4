import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyMessage } from '../../../server/gateway/signing.js';
import {
  autosubmitForm, directRequest, formsOf, FUTURE_YEAR, orderNo, postForm, postJsonAsForm, readRespon, SIGN_KEY,
  startReceiver, startSandbox, type Harness, type Receiver,
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

async function authorise(overrides: Record<string, unknown>) {
  const request = directRequest({ notify_url: receiver.url, ...overrides });
  const reply = await postJsonAsForm(h.baseUrl, '/v1/authorise', request);
  return { request, reply };
}

describe('direct card payments (raw sample-shaped requests)', () => {
  it('approves 4242 as a captured sale with every respon element, signed, and notifies', async () => {
    const { request, reply } = await authorise({ card: '4242424242424242' });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('xml');
    for (const element of ['merchant_id', 'account_id', 'order_no', 'amount', 'currency', 'transaction_id', 'card', 'order_status', 'result_info',
      'contract_name', 'recurring_id', 'recurring_deduction_period', 'recurring_deduction_time', 'note', 'token_id', 'connector',
      'threeds_result', 'risk_action', 'risk_score', 'risk_reasons', 'encryption_data']) {
      expect(reply.text).toContain(`<${element}>`);
    }
    const respon = readRespon(reply.text);
    expect(respon).toMatchObject({ order_no: request.order_no, order_status: '1', result_info: '0000:Success', card: '424242******4242', risk_action: 'ACCEPT' });
    expect(verifyMessage('authoriseResponse', respon, respon.encryption_data, [SIGN_KEY])).toBe(true);

    const tx = h.sandbox.ledger.transaction(String(request.order_no));
    expect(tx).toMatchObject({ orderStatus: '1', paymentStatus: '3000', amount: 2500, capturedAmount: 2500, card: '424242******4242' });
    await h.sandbox.notifier.flush();
    const sent = receiver.received.find((r) => r.fields.order_no === request.order_no);
    expect(sent?.contentType).toContain('application/x-www-form-urlencoded');
    expect(sent?.fields).toMatchObject({ webhooks_type: 'payment', order_status: '1', payment_status: '3000', result_info: '0000:Success', card: '424242******4242', amount: '25.00' });
    expect(verifyMessage('notification', sent?.fields ?? {}, sent?.fields.encryption_data, [SIGN_KEY])).toBe(true);
    const delivery = h.sandbox.ledger.notifications().find((n) => n.orderNo === request.order_no);
    expect(delivery?.status).toBe('delivered');
    expect(delivery?.attempts).toHaveLength(1);
  });

  it.each([
    ['4000000000000002', {}, '0', '0005:Do not honor', '5000'],
    ['4000000000009995', {}, '0', '0051:Insufficient funds', '5000'],
    ['4000000000000069', {}, '0', '0054:Expired card', '5000'],
    ['4242424242424242', { expiration_month: '01', expiration_year: '2020' }, '0', '0054:Expired card', '5000'],
    ['4000000000000119', {}, '-4', '0096:System malfunction', '5100'],
    ['4000000000009235', {}, '-2', '0100:Pending risk review', '2100'],
    ['4000000000003220', { open3d: 'no3DS' }, '0', '0200:3-D Secure authentication required', '5000'],
  ])('card %s %o → order_status %s, %s', async (card, extra, orderStatus, resultInfo, paymentStatus) => {
    const { request, reply } = await authorise({ card, ...extra });
    expect(reply.status).toBe(200);
    const respon = readRespon(reply.text);
    expect(respon).toMatchObject({ order_status: orderStatus, result_info: resultInfo });
    const tx = h.sandbox.ledger.transaction(String(request.order_no));
    expect(tx).toMatchObject({ orderStatus, resultInfo, paymentStatus, capturedAmount: 0 });
    if (orderStatus === '-2') expect(respon.risk_action).toBe('REVIEW');
  });

  it('passes 4242 frictionless under do3DS', async () => {
    const { request, reply } = await authorise({ open3d: 'do3DS' });
    const respon = readRespon(reply.text);
    expect(respon.order_status).toBe('1');
    expect(respon.threeds_result).toMatch(/frictionless/i);
    expect(respon.issuer_url).toBeUndefined();
    expect(h.sandbox.ledger.transaction(String(request.order_no))?.is3ds).toBe(true);
  });

  it('refuses a duplicate order_no with I0002 and charges nothing', async () => {
    const order = orderNo('DUP');
    const first = await authorise({ order_no: order });
    expect(first.reply.status).toBe(200);
    const second = await authorise({ order_no: order, card: '4000000000000002' });
    expect(second.reply.status).toBe(400);
    expect(JSON.parse(second.reply.text)).toMatchObject({ code: 'I0002', source: 'order_no' });
    expect(h.sandbox.ledger.transactions().filter((t) => t.orderNo === order)).toHaveLength(1);
    expect(h.sandbox.ledger.transaction(order)?.resultInfo).toBe('0000:Success');
  });

  it('refuses a Luhn-invalid card with 400 naming the card field, and stores nothing', async () => {
    const { request, reply } = await authorise({ card: '4242424242424241' });
    expect(reply.status).toBe(400);
    const body = JSON.parse(reply.text) as { source: string; message: string };
    expect(body.source).toBe('card');
    expect(body.message).not.toContain('4242424242424241');
    expect(h.sandbox.ledger.transaction(String(request.order_no))).toBeUndefined();
  });

  it('refuses a missing required field with 400 naming it', async () => {
    const { reply } = await authorise({ shopper_email: undefined });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toMatchObject({ code: 'I0001', source: 'shopper_email' });
  });

  it('tokenises with token_flag YES and charges the token later without card data', async () => {
    const first = readRespon((await authorise({ token_flag: 'YES' })).reply.text);
    expect(first.token_id).toMatch(/^TK/);
    const { request, reply } = await authorise({ card: '', expiration_month: undefined, expiration_year: undefined, security_code: undefined, token_id: first.token_id });
    expect(readRespon(reply.text)).toMatchObject({ order_status: '1', card: '424242******4242' });
    expect(h.sandbox.ledger.transaction(String(request.order_no))?.tokenId).toBe(first.token_id);
  });
});

describe('3-D Secure challenge, followed as a browser would', () => {
  async function challenge(decision: 'pass' | 'fail') {
    const otherReceiver = await startReceiver();
    try {
      const { request, reply } = await authorise({ card: '4000000000003220', open3d: 'do3DS' });
      const respon = readRespon(reply.text);
      expect(respon.order_status).toBe('-3');
      expect(respon.issuer_url).toMatch(new RegExp(`^${h.baseUrl}/issuer/3ds/[A-Za-z0-9_-]+$`));
      expect(h.sandbox.ledger.transaction(String(request.order_no))?.paymentStatus).toBe('1100');

      const returnUrl = 'https://shop.example/checkout/return?order=abc';
      const page = await postForm(h.baseUrl, new URL(respon.issuer_url ?? '').pathname, { return_url: returnUrl, notify_url: otherReceiver.url });
      expect(page.status).toBe(200);
      expect(page.text).toContain(String(request.order_no));
      expect(page.text).toContain('400000******3220');
      expect(page.text).not.toContain('4000000000003220');
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/script-src 'nonce-[^']+'/);
      const form = formsOf(page.text)[0]!;
      expect(form.action).toBe(`${respon.issuer_url ?? ''}/decision`);
      expect(page.text).toContain(`value="${decision}"`);

      const done = await postForm(h.baseUrl, new URL(form.action).pathname, { decision });
      expect(done.status).toBe(200);
      const back = autosubmitForm(done.text);
      expect(back.action).toBe(returnUrl);
      expect(done.headers.get('content-security-policy')).toContain('form-action https://shop.example;');
      expect(done.text).toContain('<noscript><button type="submit">Continue</button></noscript>');
      const nonce = /script-src 'nonce-([^']+)'/.exec(done.headers.get('content-security-policy') ?? '')?.[1];
      expect(done.text).toContain(`<script nonce="${nonce ?? 'missing'}">`);
      expect(Object.keys(back.fields).sort()).toEqual(['account_id', 'amount', 'currency', 'encryption_data', 'merchant_id', 'order_no', 'order_status', 'result_info', 'transaction_id']);
      expect(verifyMessage('notification', back.fields, back.fields.encryption_data, [SIGN_KEY])).toBe(true);
      await h.sandbox.notifier.flush();
      return { request, back, notified: otherReceiver.received };
    } finally {
      await otherReceiver.close();
    }
  }

  it('pass: approved, notified to the notify_url given at the issuer, shopper returned', async () => {
    const { request, back, notified } = await challenge('pass');
    expect(back.fields).toMatchObject({ order_status: '1', result_info: '0000:Success', order_no: request.order_no });
    expect(h.sandbox.ledger.transaction(String(request.order_no))).toMatchObject({ orderStatus: '1', paymentStatus: '3000', is3ds: true, threedsResult: 'Challenge: authenticated' });
    expect(notified).toHaveLength(1);
    expect(notified[0]?.fields).toMatchObject({ order_no: request.order_no, order_status: '1', webhooks_type: 'payment' });
  });

  it('fail: declined 0201, and the issuer page cannot be used again', async () => {
    const { request, back, notified } = await challenge('fail');
    expect(back.fields).toMatchObject({ order_status: '0', result_info: '0201:3-D Secure authentication failed' });
    const tx = h.sandbox.ledger.transaction(String(request.order_no));
    expect(tx).toMatchObject({ orderStatus: '0', paymentStatus: '5000' });
    expect(notified[0]?.fields.result_info).toBe('0201:3-D Secure authentication failed');
  });

  it('accepts a GET on issuer_url and a decision only once', async () => {
    const { reply } = await authorise({ card: '4000000000003220', open3d: 'do3DS' });
    const issuerUrl = readRespon(reply.text).issuer_url ?? '';
    const page = await fetch(issuerUrl);
    expect(page.status).toBe(200);
    const path = `${new URL(issuerUrl).pathname}/decision`;
    expect((await postForm(h.baseUrl, path, { decision: 'maybe' })).status).toBe(400);
    expect((await postForm(h.baseUrl, path, { decision: 'pass' })).status).toBe(200);
    expect((await postForm(h.baseUrl, path, { decision: 'fail' })).status).toBe(409);
  });
});

describe('through the kit client', () => {
  it('authorise approves and declines with the outcomes the kit reads', async () => {
    const base = {
      order_no: orderNo('CLI'), currency: 'EUR', amount: 1999, website: 'shop.example', shopper_id: 's-1', shopper_email: 'a@example.com',
      shopper_ip: '198.51.100.1', items: [{ name: 'Mug', sku: 'MUG', unitPrice: 1999, quantity: 1 }],
      card: '4242424242424242', expiration_month: '11', expiration_year: FUTURE_YEAR, security_code: '999', notify_url: receiver.url,
    };
    const ok = await h.client.payments.authorise(base);
    expect(ok).toMatchObject({ outcome: 'approved', amount: 1999, currency: 'EUR', maskedCard: '424242******4242', signatureVerified: true });
    const declined = await h.client.payments.authorise({ ...base, order_no: orderNo('CLI'), card: '4000000000009995' });
    expect(declined).toMatchObject({ outcome: 'declined', resultCode: '0051' });
    const challenged = await h.client.payments.authorise({ ...base, order_no: orderNo('CLI'), card: '4000000000003220', open3d: 'do3DS' });
    expect(challenged.outcome).toBe('requires_action');
    expect(challenged.issuerUrl).toContain('/issuer/3ds/');
    expect(h.sandbox.ledger.transaction(ok.orderNo)).toMatchObject({ amount: 1999, currency: 'EUR', paymentStatus: '3000' });
  });
});
