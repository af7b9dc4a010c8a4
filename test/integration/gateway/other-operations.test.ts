import { afterEach, describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../server/errors.js';
import { jsonReply, type RecordedRequest } from '../../helpers/recording-server.js';
import { AID, clientFor, jsonOf, MID, sha, useRecordingServer } from './support.js';

const server = useRecordingServer();
afterEach(() => {
  // Every operation of the interface is a POST.
  expect(server.requests.map((r) => r.method).filter((m) => m !== 'POST')).toEqual([]);
});

const REQUEST_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('payouts.create', () => {
  const input = {
    request_id: REQUEST_ID,
    payment_amount: 10_000,
    payment_currency: 'EUR',
    source_amount: 11_000,
    source_currency: 'USD',
    payment_date: '2026-02-01',
    payment_method: 'SWIFT',
    fee_paid_by: 'PAYER',
    swift_charge_option: 'SHARED',
    fund_source: 'DepositAccount',
    reason: 'supplier',
    reference: 'INV-7',
    beneficiary: {
      entity_type: 'COMPANY',
      company_name: 'Acme GmbH',
      address: { city: 'Berlin', country_code: 'DE', street_address: 'Hauptstr. 1' },
      bank_details: { account_currency: 'EUR', account_name: 'Acme', iban: 'DE89370400440532013000', swift_code: 'COBADEFFXXX', bank_country_code: 'DE' },
      person_documents: [{ file_type: 'application/pdf', file_url: 'https://files.example/a.pdf', labels: ['id'] }],
    },
    payer: { entity_type: 'COMPANY', company_name: 'Shop Ltd', address: { country_code: 'GB', city: 'London' } },
  };

  it('posts the signed JSON payout with digit amounts (whole units by default) and reads amounts in minor units', async () => {
    server.reply((request: RecordedRequest) => {
      const body = jsonOf(request);
      return jsonReply({
        ...body, beneficiary: { ...(body.beneficiary as object), bank_details: { local_clearing_system: 'SEPA' } },
        payment_amount: 100.5, amount_beneficiary_receives: 100.5, amount_payer_pays: 110, fee_amount: 2.5, fee_currency: 'EUR',
        created_at: '2026-02-01T10:00:00+00:00', last_updated_at: '2026-02-01T10:05:00+00:00', status: 'COMPLETED',
        transaction_id: 'PO-1', short_reference_id: '20260201-AB12CD', payer_id: 'P-1', failure_reason: null,
      });
    });
    const result = await clientFor(server).payouts.create(input);
    const [request] = server.requests;
    expect(request?.path).toBe('/v1/payout');
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const body = jsonOf(request);
    expect(body).toMatchObject({ merchant_id: MID, account_id: AID, request_id: REQUEST_ID, payment_amount: '100', source_amount: '110', beneficiary: input.beneficiary });
    expect(body.encryption_data).toBe(sha([MID, AID, REQUEST_ID, 'EUR', '100']));
    expect(result).toMatchObject({
      requestId: REQUEST_ID, transactionId: 'PO-1', status: 'COMPLETED', shortReferenceId: '20260201-AB12CD', payerId: 'P-1',
      amountBeneficiaryReceives: 10_050, amountPayerPays: 11_000, feeAmount: 250, feeCurrency: 'EUR', failureReason: null,
      createdAt: new Date('2026-02-01T10:00:00Z'),
    });
  });

  it('generates a request_id when none is given; an unsigned reply is accepted unless requireReplySignatures', async () => {
    server.reply(jsonReply({ status: 'COMPLETED' }));
    const { request_id: _r, ...withoutId } = input;
    await expect(clientFor(server).payouts.create(withoutId)).resolves.toMatchObject({ status: 'COMPLETED' });
    expect(jsonOf(server.requests[0]).request_id).toMatch(/^[0-9a-f-]{36}$/);
    server.reply(jsonReply({ status: 'COMPLETED' }));
    await expect(clientFor(server, { requireReplySignatures: true }).payouts.create(withoutId)).rejects.toMatchObject({ code: 'ERR_PROTOCOL_SIGNATURE' });
  });

  it('one echo rule (strict): a reply without the echo, or with another one, is a ProtocolError, refusals included', async () => {
    const replies: [string, (request: RecordedRequest) => Record<string, unknown>][] = [
      ['missing on a refusal', () => ({ return_status: '0', return_message: 'refused', request_id: REQUEST_ID })],
      ['empty on a success', () => ({ encryption_data: '', request_id: REQUEST_ID, status: 'COMPLETED' })],
      ['wrong on a success', () => ({ encryption_data: sha(['someone', 'else']), request_id: REQUEST_ID, status: 'COMPLETED' })],
      ['wrong on a refusal', () => ({ encryption_data: 'F'.repeat(64), return_status: '0', request_id: REQUEST_ID })],
    ];
    for (const [name, body] of replies) {
      server.reply((request: RecordedRequest) => jsonReply(body(request)));
      const error = await clientFor(server, { requireReplySignatures: true }).payouts.create(input).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(ProtocolError);
      expect(error, name).toMatchObject({ code: 'ERR_PROTOCOL_SIGNATURE' });
    }
    // The echo in upper case is the same signature.
    server.reply((request: RecordedRequest) => jsonReply({ encryption_data: String(jsonOf(request).encryption_data).toUpperCase(), return_status: '1', request_id: REQUEST_ID, status: 'COMPLETED' }));
    await expect(clientFor(server).payouts.create(input)).resolves.toMatchObject({ status: 'COMPLETED' });
    // A signed refusal is the gateway's answer.
    server.reply((request: RecordedRequest) => jsonReply({ encryption_data: jsonOf(request).encryption_data, return_status: '0', return_message: 'refused' }));
    await expect(clientFor(server).payouts.create(input)).rejects.toMatchObject({ code: 'ERR_GATEWAY_STATUS' });
  });

  it('returns a failed payout as a result', async () => {
    server.reply((request: RecordedRequest) => jsonReply({ encryption_data: jsonOf(request).encryption_data, request_id: REQUEST_ID, status: 'FAILED', failure_reason: 'account closed', failure_type: 'UNKNOWN' }));
    await expect(clientFor(server).payouts.create(input)).resolves.toMatchObject({ status: 'FAILED', failureReason: 'account closed', failureType: 'UNKNOWN' });
  });

  it('names the invalid field and sends nothing', async () => {
    await expect(clientFor(server).payouts.create({ ...input, payment_currency: 'euro' })).rejects.toMatchObject({ field: 'payment_currency' });
    await expect(clientFor(server).payouts.create({ ...input, beneficiary: undefined })).rejects.toMatchObject({ field: 'beneficiary' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('subscriptions.cancel', () => {
  it('posts the signed cancel and reads cancel_status', async () => {
    server.reply((request: RecordedRequest) => jsonReply({ ...jsonOf(request), cancel_status: '1', error_message: '' }));
    const result = await clientFor(server).subscriptions.cancel({ recurring_id: 'REC-1', contract_name: 'monthly' });
    expect(server.requests[0]?.path).toBe('/v1/cancelsubscription');
    // Every published sample of this operation is application/json.
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    expect(jsonOf(server.requests[0])).toEqual({ merchant_id: MID, account_id: AID, encryption_data: sha([MID, AID, 'REC-1']), recurring_id: 'REC-1', contract_name: 'monthly' });
    expect(result).toMatchObject({ ok: true, status: '1', message: null, recurringId: 'REC-1', contractName: 'monthly' });
  });

  it('returns a refusal of the subscription as ok false and a wrong echo as an error', async () => {
    server.reply((request: RecordedRequest) => jsonReply({ ...jsonOf(request), cancel_status: '0', error_message: 'already cancelled' }));
    await expect(clientFor(server).subscriptions.cancel({ recurring_id: 'REC-2' })).resolves.toMatchObject({ ok: false, message: 'already cancelled' });
    server.reply(jsonReply({ cancel_status: '1', encryption_data: 'a'.repeat(64) }));
    await expect(clientFor(server).subscriptions.cancel({ recurring_id: 'REC-3' })).rejects.toMatchObject({ code: 'ERR_PROTOCOL_SIGNATURE' });
  });
});

describe('optimise', () => {
  it('posts multipart fields and ranks methods by acceptance rate', async () => {
    server.reply(jsonReply({
      merchant_id: MID, account_id: AID, request_id: REQUEST_ID, return_status: '1', return_message: 'OK',
      payment_methods: [
        { payment_method: 'CARD', name: 'Cards', acceptance_rate: 0.82 },
        { payment_method: 'PIX', name: 'Pix', acceptance_rate: '0.97' },
        { payment_method: 'BOLETO' },
      ],
    }));
    const result = await clientFor(server).optimise({
      request_id: REQUEST_ID, amount: 1999, currency: 'BRL', shopper_email: 'a@b.example', shopper_country: 'BR', platform: 'WEB',
    });
    const [request] = server.requests;
    expect(request?.path).toBe('/v1/optimise');
    expect(request?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Response(request?.body, { headers: { 'content-type': request?.headers['content-type'] ?? '' } }).formData();
    const fields: Record<string, unknown> = {};
    form.forEach((value, key) => {
      fields[key] = value;
    });
    expect(fields).toEqual({
      merchant_id: MID, account_id: AID, encryption_data: sha([MID, AID, REQUEST_ID, 'BRL', '19.99', 'a@b.example']),
      request_id: REQUEST_ID, amount: '19.99', currency: 'BRL', shopper_email: 'a@b.example', shopper_country: 'BR', platform: 'WEB',
    });
    expect(result.paymentMethods).toEqual([
      { paymentMethod: 'PIX', name: 'Pix', acceptanceRate: 0.97 },
      { paymentMethod: 'CARD', name: 'Cards', acceptanceRate: 0.82 },
      { paymentMethod: 'BOLETO', name: null, acceptanceRate: null },
    ]);
  });
});

describe('updateOrders', () => {
  it('splits to 50 per request, signs each, and reads update_status', async () => {
    server.setFallback((request: RecordedRequest) => {
      const body = jsonOf(request);
      const elements = (body.update_orders as Record<string, unknown>[]).map((e) => ({ ...e, update_status: '1' }));
      return jsonReply({ return_status: '1', return_message: 'OK', encryption_data: body.encryption_data, update_orders: elements });
    });
    const input = Array.from({ length: 60 }, (_, i) => ({ transaction_id: `U${i}`, status: 'success', ispass3d: '1' }));
    const results = await clientFor(server).updateOrders(input);
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/updateOrders', '/v1/updateOrders']);
    expect(server.requests.map((r) => r.headers['content-type'])).toEqual(['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded']);
    const sizes = server.requests.map((r) => (jsonOf(r).update_orders as unknown[]).length).sort((a, b) => b - a);
    expect(sizes).toEqual([50, 10]);
    for (const r of server.requests) {
      const body = jsonOf(r);
      expect(body.encryption_data).toBe(sha([MID, AID, ...(body.update_orders as { transaction_id: string }[]).map((e) => e.transaction_id)]));
    }
    expect(results.map((r) => r.input)).toEqual(input);
    expect(results.every((r) => r.ok)).toBe(true);
  });
});
