import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError, ProtocolError, TransportError, ValidationError } from '../../../server/errors.js';
import { jsonReply, xmlReply } from '../../helpers/recording-server.js';
import { AID, clientFor, directInput, jsonOf, MID, PAN, sha, signedRespon, useRecordingServer } from './support.js';

const server = useRecordingServer();
afterEach(() => {
  // Every operation of the interface is a POST.
  expect(server.requests.map((r) => r.method).filter((m) => m !== 'POST')).toEqual([]);
});

const approved = (orderNo: string) =>
  signedRespon({
    order_no: orderNo, amount: '26.50', currency: 'USD', transaction_id: 'TX-1', order_status: '1', result_info: '0000:Success',
    card: '411111******1111', risk_action: 'ACCEPT', risk_score: '10', threeds_result: 'Y', recurring_id: '', token_id: 'tok_9',
    risk_reasons: [{ name: 'ip', status: 'PASS' }],
  });

describe('payments.authorise (direct)', () => {
  it('posts the signed JSON body under the form content type and reads the XML result', async () => {
    server.reply(xmlReply(approved('PAY-1')));
    const result = await clientFor(server).payments.authorise(directInput('PAY-1'));

    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/authorise');
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const body = jsonOf(request);
    expect(body).toMatchObject({
      merchant_id: MID, account_id: AID, order_no: 'PAY-1', currency: 'USD', amount: '26.50', website: 'shop.example',
      items: 'Blue mug#,#MUG-1#,#12.50#,#2#;#Shipping box#,#BOX#,#1.50#,#1', card: PAN, security_code: '9173', open3d: 'do3DS',
    });
    expect(body.encryption_data).toBe(sha([MID, AID, 'PAY-1', 'USD', '26.50']));

    expect(result).toMatchObject({
      orderNo: 'PAY-1', transactionId: 'TX-1', amount: 2650, currency: 'USD', orderStatus: '1', outcome: 'approved',
      resultCode: '0000', resultText: 'Success', issuerUrl: null, maskedCard: '411111******1111', riskAction: 'ACCEPT',
      riskScore: '10', riskReasons: [{ name: 'ip', status: 'PASS' }], threedsResult: 'Y', recurringId: null, tokenId: 'tok_9',
      signatureVerified: true,
    });
    expect(result.raw.order_no).toBe('PAY-1');
  });

  it('labels JSON as application/json when configured', async () => {
    server.reply(xmlReply(approved('PAY-2')));
    await clientFor(server, { jsonContentType: 'application/json' }).payments.authorise(directInput('PAY-2'));
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
  });

  it('returns a decline as a result, not an exception', async () => {
    server.reply(xmlReply(signedRespon({ order_no: 'PAY-3', amount: '26.50', currency: 'USD', transaction_id: 'TX-3', order_status: '0', result_info: '0005:Do not honor' })));
    const result = await clientFor(server).payments.authorise(directInput('PAY-3'));
    expect(result).toMatchObject({ outcome: 'declined', resultCode: '0005', resultText: 'Do not honor' });
  });

  it('returns a 3-D Secure challenge as requires_action with the issuer URL', async () => {
    server.reply(xmlReply(signedRespon({ order_no: 'PAY-4', amount: '26.50', currency: 'USD', transaction_id: 'TX-4', order_status: '-3', issuer_url: 'https://acs.example/c?x=1&y=2' })));
    const result = await clientFor(server).payments.authorise(directInput('PAY-4'));
    expect(result).toMatchObject({ outcome: 'requires_action', issuerUrl: 'https://acs.example/c?x=1&y=2' });
  });

  it('accepts upper-case signatures and replies signed with a rotated key', async () => {
    server.reply(xmlReply(approved('PAY-5').replace(/<encryption_data>([0-9a-f]+)</, (_m, hex: string) => `<encryption_data>${hex.toUpperCase()}<`)));
    await expect(clientFor(server).payments.authorise(directInput('PAY-5'))).resolves.toMatchObject({ outcome: 'approved' });
    server.reply(xmlReply(signedRespon({ order_no: 'PAY-6', amount: '26.50', currency: 'USD', transaction_id: 'T', order_status: '1' }, 'old-key')));
    await expect(clientFor(server, { verifyKeys: ['old-key'] }).payments.authorise(directInput('PAY-6'))).resolves.toMatchObject({ outcome: 'approved' });
  });

  it('never reports success for a reply whose signature does not verify, nor (strict) one that has none', async () => {
    const forged = approved('PAY-7').replace('<amount>26.50</amount>', '<amount>0.01</amount>');
    server.reply(xmlReply(forged));
    await expect(clientFor(server).payments.authorise(directInput('PAY-7'))).rejects.toMatchObject({ code: 'ERR_PROTOCOL_SIGNATURE' });
    // Unsigned: accepted, marked unverified, by default; refused under requireReplySignatures.
    server.reply(xmlReply(approved('PAY-8').replace(/<encryption_data>[^<]*<\/encryption_data>/, '')));
    await expect(clientFor(server).payments.authorise(directInput('PAY-8'))).resolves.toMatchObject({ outcome: 'approved', signatureVerified: false });
    server.reply(xmlReply(approved('PAY-8').replace(/<encryption_data>[^<]*<\/encryption_data>/, '')));
    const error: unknown = await clientFor(server, { requireReplySignatures: true }).payments.authorise(directInput('PAY-8')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe('ERR_PROTOCOL_SIGNATURE');
    expect((error as ProtocolError).message).toContain('authorise for order PAY-8');
  });

  it('refuses a reply for another order number and malformed XML', async () => {
    server.reply(xmlReply(approved('SOMEONE-ELSE')));
    await expect(clientFor(server).payments.authorise(directInput('PAY-9'))).rejects.toMatchObject({ code: 'ERR_PROTOCOL_MALFORMED' });
    server.reply(xmlReply('<respon><order_no>PAY-10</order_no>'));
    await expect(clientFor(server).payments.authorise(directInput('PAY-10'))).rejects.toMatchObject({ code: 'ERR_PROTOCOL_MALFORMED' });
    server.reply(xmlReply('<!DOCTYPE x [<!ENTITY a "b">]><respon><order_no>&a;</order_no></respon>'));
    await expect(clientFor(server).payments.authorise(directInput('PAY-11'))).rejects.toMatchObject({ code: 'ERR_PROTOCOL_MALFORMED' });
  });
});

describe('payments.authorise refusals', () => {
  const cases = [
    [400, { code: 'I0001', source: 'shopper_email', message: 'invalid input' }, 'ERR_GATEWAY_INVALID_INPUT'],
    [404, { code: 'I0404', source: 'order_no', message: 'record not found' }, 'ERR_GATEWAY_NOT_FOUND'],
    [400, { code: 'I0013', source: 'encryption_data', message: 'bad signature' }, 'ERR_GATEWAY_BAD_SIGNATURE'],
    [400, { code: 'I0014', source: 'account_id', message: 'test account on live' }, 'ERR_GATEWAY_TEST_ACCOUNT_ON_LIVE'],
    [400, { code: 'I0015', source: 'account_id', message: 'live account on test' }, 'ERR_GATEWAY_LIVE_ACCOUNT_ON_TEST'],
    [200, { code: 'I0013', source: 'encryption_data', message: 'bad signature' }, 'ERR_GATEWAY_BAD_SIGNATURE'],
  ] as const;

  for (const [status, body, code] of cases) {
    it(`maps HTTP ${status} ${body.code} to ${code} with the code and source`, async () => {
      server.reply(jsonReply(body, status));
      const error: unknown = await clientFor(server).payments.authorise(directInput(`REF-${body.code}`)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayError);
      const refused = error as GatewayError;
      expect(refused.code).toBe(code);
      expect(refused.httpStatus).toBe(status);
      expect(refused.gatewayCode).toBe(body.code);
      expect(refused.details).toMatchObject({ source: body.source, operation: 'authorise', orderNo: `REF-${body.code}` });
      expect(server.requests).toHaveLength(1);
    });
  }

  it('maps other statuses to ERR_GATEWAY_HTTP', async () => {
    server.reply({ status: 502, body: 'bad gateway' });
    await expect(clientFor(server).payments.authorise(directInput('REF-502'))).rejects.toMatchObject({ code: 'ERR_GATEWAY_HTTP', httpStatus: 502 });
  });

  it('says the outcome is unknown when the answer is lost', async () => {
    server.reply({ hang: true });
    const error: unknown = await clientFor(server, { timeoutMs: 1000 }).payments.authorise(directInput('LOST-1')).catch((e: unknown) => e);
    await server.waitForRequests(1);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'ERR_TRANSPORT_TIMEOUT', outcomeUnknown: true });
    expect((error as Error).message).toMatch(/authorise for order LOST-1.*outcome is unknown.*query/);
    server.reply({ destroy: true });
    await expect(clientFor(server).payments.authorise(directInput('LOST-2'))).rejects.toMatchObject({ code: 'ERR_TRANSPORT_CONNECTION', outcomeUnknown: true });
  });
});

describe('payments input validation', () => {
  it('names the offending field and sends nothing', async () => {
    const client = clientFor(server);
    const { shopper_email: _e, ...noEmail } = directInput('VAL-1');
    await expect(client.payments.authorise(noEmail as never)).rejects.toMatchObject({ code: 'ERR_VALIDATION', field: 'shopper_email' });
    await expect(client.payments.authorise(directInput('VAL-2', { amount: 10.5 }))).rejects.toMatchObject({ field: 'amount' });
    await expect(client.payments.authorise({ ...directInput('VAL-3'), shoper_email: 'x' } as never)).rejects.toMatchObject({ field: 'shoper_email' });
    await expect(client.payments.authorise(directInput('VAL-4', { items: [{ name: 'a#;#b', sku: 's', unitPrice: 1, quantity: 1 }] }))).rejects.toMatchObject({ field: 'items[0].name' });
    await expect(client.payments.authorise(directInput('VAL-5', { card: '' }))).rejects.toMatchObject({ field: 'card' });
    expect(server.requests).toHaveLength(0);
  });

  it('checks the amount components only when asked', async () => {
    const parts = { item_total: 2000, shipping: 500 };
    await expect(clientFor(server, { checkAmountComponents: true }).payments.authorise(directInput('VAL-6', parts))).rejects.toBeInstanceOf(ValidationError);
    expect(server.requests).toHaveLength(0);
    server.reply(xmlReply(approved('VAL-7')));
    await clientFor(server).payments.authorise(directInput('VAL-7', parts));
    expect(jsonOf(server.requests[0])).toMatchObject({ item_total: '20.00', shipping: '5.00' });
  });
});

describe('payments.authoriseApm', () => {
  it('sends payment_method and person, and accepts the unsigned issuer_url reply', async () => {
    server.reply(xmlReply('<?xml version="1.0"?><respon><merchant_id>701001</merchant_id><account_id>701001010</account_id><order_no>APM-1</order_no><amount>1000</amount><currency>JPY</currency><issuer_url>https://issuer.example/pay?t=1&amp;u=2</issuer_url></respon>'));
    const { card: _c, expiration_month: _m, expiration_year: _y, security_code: _s, open3d: _o, user_agent: _u, ...base } = directInput('APM-1');
    const result = await clientFor(server).payments.authoriseApm({
      ...base, currency: 'JPY', amount: 1000, items: [{ name: 'Ramen', sku: 'R', unitPrice: 1000, quantity: 1 }],
      payment_method: 'PAYPAY', return_url: 'https://shop.example/return', person: { document_number: '123', address_country: 'JP' },
    });
    const body = jsonOf(server.requests[0]);
    expect(body).toMatchObject({ payment_method: 'PAYPAY', amount: '1000', currency: 'JPY', items: 'Ramen#,#R#,#1000#,#1', person: { document_number: '123', address_country: 'JP' } });
    expect(body).not.toHaveProperty('card');
    expect(body.encryption_data).toBe(sha([MID, AID, 'APM-1', 'JPY', '1000']));
    expect(result).toMatchObject({ outcome: 'requires_action', issuerUrl: 'https://issuer.example/pay?t=1&u=2', amount: 1000, signatureVerified: false });
  });
});

describe('payments.checkoutForm and checkoutPage', () => {
  it('builds the signed form for the browser without any HTTP call', () => {
    const { card: _c, expiration_month: _m, expiration_year: _y, security_code: _s, ...input } = directInput('CO-1');
    const form = clientFor(server).payments.checkoutForm({
      ...input, return_url: 'https://shop.example/r', cancel_url: 'https://shop.example/c', checkout_time: 1767225600,
      subscription: { contract_amount: 990, interval: 'day', billing_cycle: 12 },
    });
    expect(form.action).toBe(`${server.url}/v1/checkout`);
    expect(form.fields).toMatchObject({ merchant_id: MID, order_no: 'CO-1', amount: '26.50', checkout_time: '1767225600', return_url: 'https://shop.example/r' });
    expect(JSON.parse(form.fields.subscription ?? '')).toEqual({ contract_amount: '9.90', interval: 'day', billing_cycle: 12 });
    expect(form.fields.encryption_data).toBe(sha([MID, AID, 'CO-1', 'USD', '26.50']));
    expect(Object.values(form.fields).every((v) => typeof v === 'string')).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses card data in a checkout request', () => {
    expect(() => clientFor(server).payments.checkoutForm(directInput('CO-2') as never)).toThrow(ValidationError);
  });

  it('posts the checkout request server-side and returns the page', async () => {
    server.reply({ status: 200, headers: { 'content-type': 'text/html' }, body: '<html><form id="pay"></form></html>' });
    const { card: _c, expiration_month: _m, expiration_year: _y, security_code: _s, ...input } = directInput('CO-3');
    const html = await clientFor(server).payments.checkoutPage(input);
    expect(html).toContain('<form id="pay">');
    expect(server.requests[0]?.path).toBe('/v1/checkout');
    expect(jsonOf(server.requests[0]).encryption_data).toBe(sha([MID, AID, 'CO-3', 'USD', '26.50']));
  });
});
