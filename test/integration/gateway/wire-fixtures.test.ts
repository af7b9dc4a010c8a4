/**
 * The client against the hand-written wire fixtures (test/fixtures/wire): from each fixture's
 * input it must send exactly the fixture's request (path, content type, every field and the
 * hand-computed signature), and it must accept and read the fixture's reply.
 */
import { describe, expect, it } from 'vitest';
import { createGatewayClient, type GatewayClient, type GatewayClientOptions } from '../../../server/gateway/index.js';
import type { RecordedRequest } from '../../helpers/recording-server.js';
import { FIXTURE_ACCOUNT, type WireFixture } from '../../fixtures/wire/account.js';
import { authoriseFixture, authoriseRead } from '../../fixtures/wire/authorise.js';
import { cancelSubscriptionFixture } from '../../fixtures/wire/cancel-subscription.js';
import { payoutFixture, payoutMinorFixture, payoutRead } from '../../fixtures/wire/payout.js';
import { ipRefusalReply, queryFixture, queryRead } from '../../fixtures/wire/query.js';
import { refundFixture } from '../../fixtures/wire/refund.js';
import { updateOrdersFixture } from '../../fixtures/wire/update-orders.js';
import { useRecordingServer } from './support.js';

const server = useRecordingServer();

function client(options: Partial<GatewayClientOptions> = {}): GatewayClient {
  return createGatewayClient({ baseUrl: server.url, ...FIXTURE_ACCOUNT, readRetries: { attempts: 1, baseDelayMs: 1 }, ...options });
}

function replyWith(fixture: WireFixture): void {
  server.reply({ status: fixture.reply.status, headers: { 'content-type': fixture.reply.contentType }, body: fixture.reply.body });
}

/** The one request the client sent, checked against the fixture's. */
function expectSent(fixture: WireFixture): void {
  expect(server.requests).toHaveLength(1);
  const sent = server.requests[0] as RecordedRequest;
  expect(sent.method).toBe('POST');
  expect(sent.path).toBe(fixture.path);
  expect(sent.headers['content-type']).toBe(fixture.contentType);
  const fields: unknown = fixture.encoding === 'json' ? JSON.parse(sent.body) : Object.fromEntries(new URLSearchParams(sent.body));
  expect(fields).toEqual(fixture.request);
}

describe('client against the wire fixtures', () => {
  it('authorise: builds the fixture request and reads the signed XML reply', async () => {
    replyWith(authoriseFixture);
    const result = await client().payments.authorise(authoriseFixture.input as never);
    expectSent(authoriseFixture);
    expect(result).toMatchObject(authoriseRead);
  });

  it('payout: digits in whole units by default, signed as sent; numbers read back in minor units', async () => {
    replyWith(payoutFixture);
    const result = await client().payouts.create(payoutFixture.input as never);
    expectSent(payoutFixture);
    expect(result).toMatchObject(payoutRead);
  });

  it("payout with payoutAmountUnit 'minor': digits are minor units", async () => {
    replyWith(payoutMinorFixture);
    const result = await client({ payoutAmountUnit: 'minor' }).payouts.create(payoutMinorFixture.input as never);
    expectSent(payoutMinorFixture);
    expect(result).toMatchObject(payoutRead);
  });

  it('cancelsubscription: an application/json request', async () => {
    replyWith(cancelSubscriptionFixture);
    const result = await client().subscriptions.cancel(cancelSubscriptionFixture.input as never);
    expectSent(cancelSubscriptionFixture);
    expect(result).toMatchObject({ ok: true, status: '1', recurringId: 'RC7QK2ZD9X4M8P3LWT', contractName: 'Tea club' });
  });

  it('updateOrders: the bare envelope reply answers every order as succeeded', async () => {
    replyWith(updateOrdersFixture);
    const results = await client().updateOrders((updateOrdersFixture.input as { orders: never[] }).orders);
    expectSent(updateOrdersFixture);
    expect(results.map((r) => [r.ok, r.status, r.message, r.error])).toEqual([[true, '1', 'OK', null], [true, '1', 'OK', null]]);
  });

  it('query: accepts the unsigned reply and reads the top-level fraud fields into the order', async () => {
    replyWith(queryFixture);
    const result = await client().queries.transactions(queryFixture.input);
    expectSent(queryFixture);
    expect(result.orders).toHaveLength(1);
    expect(result.orders[0]).toMatchObject(queryRead);
  });

  it('query: the same unsigned reply is refused under requireReplySignatures', async () => {
    replyWith(queryFixture);
    await expect(client({ requireReplySignatures: true }).queries.transactions(queryFixture.input)).rejects.toMatchObject({
      code: 'ERR_PROTOCOL_SIGNATURE',
    });
  });

  it('query: an I0016 refusal is ERR_GATEWAY_IP_NOT_ALLOWED telling the merchant to allowlist the address', async () => {
    server.reply({ status: ipRefusalReply.status, headers: { 'content-type': ipRefusalReply.contentType }, body: ipRefusalReply.body });
    const error: unknown = await client().queries.transactions(queryFixture.input).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_GATEWAY_IP_NOT_ALLOWED', gatewayCode: 'I0016', httpStatus: 403 });
    expect((error as Error).message).toMatch(/allowlist/);
  });

  it('refund: builds the fixture batch and reads the element', async () => {
    replyWith(refundFixture);
    const results = await client().batch.refund((refundFixture.input as { orders: never[] }).orders);
    expectSent(refundFixture);
    expect(results[0]).toMatchObject({ ok: true, status: '1', message: 'V0000:OK', error: null, element: { refund_reference_id: 'SBX20260131100000K7Q2ZD-01' } });
  });
});
