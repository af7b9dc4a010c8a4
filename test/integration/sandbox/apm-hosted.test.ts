import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyMessage } from '../../../server/gateway/signing.js';
import {
  ACCOUNT_ID, autosubmitForm, FUTURE_YEAR, MERCHANT_ID, orderNo, postForm, postJsonAsForm, readRespon, sign, SIGN_KEY,
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

function apmRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return sign('authorise', {
    payment_method: 'IDEAL', merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, order_no: orderNo('APM'), currency: 'EUR', amount: '42.00',
    website: 'shop.example', items: 'Book#,#B-1#,#42.00#,#1', shopper_id: 's-2', shopper_email: 'apm@example.com', shopper_ip: '203.0.113.9',
    return_url: 'https://shop.example/return', notify_url: receiver.url, ...overrides,
  });
}

describe('APM payments', () => {
  async function start(overrides: Record<string, unknown> = {}) {
    const request = apmRequest(overrides);
    const reply = await postJsonAsForm(h.baseUrl, '/v1/authorise', request);
    expect(reply.status).toBe(200);
    const respon = readRespon(reply.text);
    expect(respon).toMatchObject({ merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, order_no: request.order_no, amount: '42.00', currency: request.currency, order_status: '-3' });
    expect(respon.issuer_url).toMatch(new RegExp(`^${h.baseUrl}/issuer/apm/`));
    expect(verifyMessage('authoriseResponse', respon, respon.encryption_data, [SIGN_KEY])).toBe(true);
    return { request, issuerUrl: respon.issuer_url ?? '' };
  }

  async function decide(issuerUrl: string, decision: string) {
    const page = await fetch(issuerUrl);
    const html = await page.text();
    expect(html).toContain('value="approve"');
    expect(html).toContain('value="abandon"');
    const done = await postForm(h.baseUrl, `${new URL(issuerUrl).pathname}/decision`, { decision });
    expect(done.status).toBe(200);
    await h.sandbox.notifier.flush();
    return autosubmitForm(done.text);
  }

  it('approve: captured sale, notified, shopper posted back to return_url', async () => {
    const { request, issuerUrl } = await start();
    const back = await decide(issuerUrl, 'approve');
    expect(back.action).toBe('https://shop.example/return');
    expect(back.fields).toMatchObject({ order_no: request.order_no, order_status: '1', result_info: '0000:Success' });
    expect(h.sandbox.ledger.transaction(String(request.order_no))).toMatchObject({ kind: 'apm', paymentMethod: 'IDEAL', paymentStatus: '3000', capturedAmount: 4200 });
    expect(receiver.received.find((r) => r.fields.order_no === request.order_no)?.fields.order_status).toBe('1');
  });

  it('abandon: order_status 3 with 0301 and a cancelled payment', async () => {
    const { request, issuerUrl } = await start({ payment_method: 'PIX', currency: 'BRL', person: { document_number: '12345678909', document_type: 'CPF' } });
    const back = await decide(issuerUrl, 'abandon');
    expect(back.fields).toMatchObject({ order_status: '3', result_info: '0301:Shopper abandoned the payment' });
    expect(h.sandbox.ledger.transaction(String(request.order_no))).toMatchObject({ orderStatus: '3', paymentStatus: '6000' });
    expect(receiver.received.find((r) => r.fields.order_no === request.order_no)?.fields.result_info).toBe('0301:Shopper abandoned the payment');
  });

  it('decline: declined with 0005', async () => {
    const { request, issuerUrl } = await start();
    expect((await decide(issuerUrl, 'decline')).fields.order_status).toBe('0');
    expect(h.sandbox.ledger.transaction(String(request.order_no))?.resultInfo).toBe('0005:Do not honor');
  });

  it('refuses an unknown payment_method with 400 and creates nothing', async () => {
    const request = apmRequest({ payment_method: 'SEASHELLS' });
    const reply = await postJsonAsForm(h.baseUrl, '/v1/authorise', request);
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toMatchObject({ source: 'payment_method' });
    expect(h.sandbox.ledger.transaction(String(request.order_no))).toBeUndefined();
  });

  it('optimise lists the methods (multipart through the client) ranked by acceptance rate', async () => {
    const result = await h.client.optimise({ amount: 1000, currency: 'EUR', shopper_email: 'o@example.com', shopper_country: 'NL' });
    expect(result.paymentMethods[0]?.paymentMethod).toBe('IDEAL');
    expect(result.paymentMethods.map((m) => m.paymentMethod)).toEqual(expect.arrayContaining(['IDEAL', 'PIX']));
    const rates = result.paymentMethods.map((m) => m.acceptanceRate ?? 0);
    expect([...rates].sort((a, b) => b - a)).toEqual(rates);
  });
});

function checkoutRequest(overrides: Record<string, string> = {}): Record<string, string> {
  const fields: Record<string, string> = {
    merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, order_no: orderNo('HOST'), currency: 'USD', amount: '30.00',
    items: 'Lamp#,#L-1#,#30.00#,#1', shopper_id: 's-3', shopper_email: 'hosted@example.com', website: 'shop.example',
    first_name: 'Grace', last_name: 'Hopper', delivery_country: 'US', shipping: '0.00', open3d: 'no3DS',
    return_url: 'https://shop.example/hosted/return', cancel_url: 'https://shop.example/hosted/cancel', notify_url: receiver.url,
    ...overrides,
  };
  return sign('checkout', fields) as Record<string, string>;
}

describe('hosted checkout', () => {
  async function openCardPage(request: Record<string, string>) {
    const reply = await postForm(h.baseUrl, '/v1/checkout', request);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('text/html');
    const csp = reply.headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1] ?? 'none';
    expect(reply.text).toContain(`<script nonce="${nonce}">`);
    expect(reply.text).toContain('<noscript>');
    const form = autosubmitForm(reply.text);
    expect(form.action).toBe(`${h.baseUrl}/hosted/pay`);
    for (const name of ['gbc_id', 'connector_code', 'account_name', 'pm_id', 'apm_type', 'descriptor', 'orderprefix', 'rrtimezone', 'ordernumlength', 'to_pass_page',
      'merNo', 'gatewayNo', 'orderNo', 'orderAmount', 'orderCurrency', 'firstName', 'lastName', 'notifyUrl', 'returnUrl', 'cancelUrl', 'signInfo', 'goodsInfo',
      'shipFee', 'taxTotal', 'itemTotal', 'shippingDiscount', 'shipFirstName', 'shipLastName', 'shipCountry', 'shipState', 'shipCity', 'shipAddress', 'shipZip',
      'isOpen3D', 'cardType', 'paymentToken', 'shopperId', 'shopperLevel', 'defaultLang', 'verifyBillingAddress', 'return_url', 'cancel_url',
      'source_request_ip', 'source_notify_url', 'default_lang', 'logo_name', 'merSendLogoNo', 'allParams']) {
      expect(form.fields, name).toHaveProperty(name);
    }
    expect(form.fields).toMatchObject({
      order_no: request.order_no, merNo: MERCHANT_ID, gatewayNo: ACCOUNT_ID, orderNo: request.order_no, orderAmount: '30.00', orderCurrency: 'USD',
      signInfo: request.encryption_data, goodsInfo: request.items, firstName: 'Grace', source_notify_url: receiver.url,
    });
    expect(new URLSearchParams(form.fields.allParams).get('order_no')).toBe(request.order_no);
    const tx = h.sandbox.ledger.transaction(request.order_no ?? '');
    expect(tx).toMatchObject({ kind: 'hosted', orderStatus: '-3', card: '' });
    const page = await postForm(h.baseUrl, '/hosted/pay', form.fields);
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="security_code"');
    return page;
  }

  function cardFormAction(html: string): { pay: string; cancel: string } {
    const actions = [...html.matchAll(/<form[^>]*action="([^"]+)"/g)].map((m) => m[1] ?? '');
    return { pay: actions.find((a) => /\/hosted\/pay\/[^/]+$/.test(a)) ?? '', cancel: actions.find((a) => a.endsWith('/cancel')) ?? '' };
  }

  it('checkout → hosted card page → pay → return form, notified', async () => {
    const request = checkoutRequest();
    const page = await openCardPage(request);
    const { pay } = cardFormAction(page.text);
    const paid = await postForm(h.baseUrl, new URL(pay).pathname, {
      card: '4242424242424242', expiration_month: '10', expiration_year: FUTURE_YEAR, security_code: '321', first_name: 'Grace', last_name: 'Hopper',
    });
    expect(paid.status).toBe(200);
    const back = autosubmitForm(paid.text);
    expect(back.action).toBe('https://shop.example/hosted/return');
    expect(back.fields).toMatchObject({ order_no: request.order_no, order_status: '1', amount: '30.00' });
    expect(verifyMessage('notification', back.fields, back.fields.encryption_data, [SIGN_KEY])).toBe(true);
    expect(paid.text).not.toContain('4242424242424242');
    await h.sandbox.notifier.flush();
    expect(h.sandbox.ledger.transaction(request.order_no ?? '')).toMatchObject({ orderStatus: '1', paymentStatus: '3000', card: '424242******4242' });
    expect(receiver.received.find((r) => r.fields.order_no === request.order_no)?.fields.webhooks_type).toBe('payment');
    // The page is spent.
    expect((await postForm(h.baseUrl, new URL(pay).pathname, { card: '4242424242424242' })).status).toBe(409);
  });

  it('a bad card re-shows the form without echoing the number', async () => {
    const page = await openCardPage(checkoutRequest());
    const { pay } = cardFormAction(page.text);
    const again = await postForm(h.baseUrl, new URL(pay).pathname, { card: '4242424242424241', expiration_month: '10', expiration_year: FUTURE_YEAR, security_code: '1' });
    expect(again.status).toBe(400);
    expect(again.text).toContain('Luhn');
    expect(again.text).not.toContain('4242424242424241');
  });

  it('3220 goes through the challenge page automatically, then back to return_url', async () => {
    const request = checkoutRequest();
    const page = await openCardPage(request);
    const paid = await postForm(h.baseUrl, new URL(cardFormAction(page.text).pay).pathname, {
      card: '4000000000003220', expiration_month: '10', expiration_year: FUTURE_YEAR, security_code: '321',
    });
    expect(paid.status).toBe(303);
    const challenge = paid.headers.get('location') ?? '';
    expect(challenge).toContain('/issuer/3ds/');
    const issuerPage = await fetch(challenge);
    expect(await issuerPage.text()).toContain('value="pass"');
    const done = await postForm(h.baseUrl, `${new URL(challenge).pathname}/decision`, { decision: 'pass' });
    const back = autosubmitForm(done.text);
    expect(back.action).toBe('https://shop.example/hosted/return');
    expect(back.fields.order_status).toBe('1');
    expect(h.sandbox.ledger.transaction(request.order_no ?? '')).toMatchObject({ is3ds: true, paymentStatus: '3000' });
  });

  it('Cancel posts to cancel_url, cancels the order and notifies', async () => {
    const request = checkoutRequest();
    const page = await openCardPage(request);
    const cancelled = await postForm(h.baseUrl, new URL(cardFormAction(page.text).cancel).pathname, {});
    const back = autosubmitForm(cancelled.text);
    expect(back.action).toBe('https://shop.example/hosted/cancel');
    expect(back.fields).toMatchObject({ order_status: '3', result_info: '0400:Cancelled' });
    await h.sandbox.notifier.flush();
    expect(h.sandbox.ledger.transaction(request.order_no ?? '')).toMatchObject({ orderStatus: '3', paymentStatus: '6000' });
    expect(receiver.received.find((r) => r.fields.order_no === request.order_no)?.fields.webhooks_type).toBe('cancel');
  });

  it('accepts the checkout as JSON under a form content type and through the client', async () => {
    const json = await postJsonAsForm(h.baseUrl, '/v1/checkout', checkoutRequest());
    expect(json.status).toBe(200);
    expect(autosubmitForm(json.text).action).toBe(`${h.baseUrl}/hosted/pay`);
    const html = await h.client.payments.checkoutPage({
      order_no: orderNo('HCLI'), currency: 'USD', amount: 500, items: [{ name: 'Pen', sku: 'P', unitPrice: 500, quantity: 1 }],
      shopper_id: 's', shopper_email: 'c@example.com', return_url: 'https://shop.example/r', subscription: { contract_name: 'Pens', interval: 'month', interval_count: '1' },
    });
    expect(autosubmitForm(html).fields.orderAmount).toBe('5.00');
  });

  it('refuses a checkout with a bad signature', async () => {
    const reply = await postForm(h.baseUrl, '/v1/checkout', { ...checkoutRequest(), amount: '31.00' });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toMatchObject({ code: 'I0013', source: 'encryption_data' });
  });
});
