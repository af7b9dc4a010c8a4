/**
 * The sandbox against the hand-written wire fixtures (test/fixtures/wire), over real HTTP. It
 * must accept each fixture request as written and answer with the fixture reply's shape and
 * signature. Nothing here uses the client's code: signatures are checked with the recipe written
 * out below, so a change in the client's reading alone cannot make these pass.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LedgerStore } from '../../../server/sandbox/ledger.js';
import { createSandbox, type Sandbox } from '../../../server/sandbox/index.js';
import { FIXTURE_ACCOUNT, FIXTURE_TRANSACTION_ID, FIXTURE_TRANSACTION_ID_2, type WireFixture } from '../../fixtures/wire/account.js';
import { authoriseFixture, RESPON_ELEMENTS } from '../../fixtures/wire/authorise.js';
import { cancelSubscriptionFixture } from '../../fixtures/wire/cancel-subscription.js';
import { payoutFixture, payoutMinorFixture } from '../../fixtures/wire/payout.js';
import { queryFixture } from '../../fixtures/wire/query.js';
import { refundFixture } from '../../fixtures/wire/refund.js';
import { updateOrdersFixture } from '../../fixtures/wire/update-orders.js';

interface Running {
  sandbox: Sandbox;
  baseUrl: string;
  close(): Promise<void>;
}

async function start(options: Record<string, unknown> = {}): Promise<Running> {
  const sandbox = createSandbox({ accounts: [{ ...FIXTURE_ACCOUNT }], env: {}, notifyTimeScale: 0.001, ...options });
  const listener = await sandbox.listen(0);
  return {
    sandbox,
    baseUrl: listener.baseUrl,
    close: async () => {
      await listener.close();
      await sandbox.close();
    },
  };
}

async function send(baseUrl: string, fixture: WireFixture, contentType = fixture.contentType): Promise<{ status: number; text: string; type: string }> {
  const body = fixture.encoding === 'json' ? JSON.stringify(fixture.request) : new URLSearchParams(fixture.request as Record<string, string>).toString();
  const response = await fetch(baseUrl + fixture.path, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: response.status, text: await response.text(), type: response.headers.get('content-type') ?? '' };
}

/** Keys of an object, recursively for nested objects and the first element of arrays. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, shape((value as Record<string, unknown>)[key])]));
  }
  return typeof value;
}

/** SHA-256 of the values joined, sign key last (gateway-notes §2), written here on purpose. */
const sha = (...values: string[]): string => createHash('sha256').update(values.join('') + FIXTURE_ACCOUNT.signKey).digest('hex');

/** The flat elements of a `respon`, in order; risk_reasons counted once. */
function elementsOf(xml: string): Map<string, string> {
  const inner = /<respon>([\s\S]*)<\/respon>/.exec(xml)?.[1] ?? '';
  const out = new Map<string, string>();
  for (const match of inner.matchAll(/<([A-Za-z_]+)>([\s\S]*?)<\/\1>/g)) if (!out.has(match[1] ?? '')) out.set(match[1] ?? '', match[2] ?? '');
  return out;
}

let gw: Running;
beforeAll(async () => {
  gw = await start();
});
afterAll(async () => {
  await gw.close();
});

describe('sandbox against the wire fixtures', () => {
  it('authorise: accepts the fixture request; the respon has the fixture elements and a signature by the assumed recipe', async () => {
    const reply = await send(gw.baseUrl, authoriseFixture);
    expect(reply.status).toBe(200);
    expect(reply.type).toContain('xml');
    const got = elementsOf(reply.text);
    expect([...got.keys()]).toEqual(RESPON_ELEMENTS);
    const expected = elementsOf(authoriseFixture.reply.body);
    for (const name of ['merchant_id', 'account_id', 'order_no', 'amount', 'currency', 'order_status', 'card', 'result_info']) {
      expect(got.get(name), name).toBe(expected.get(name));
    }
    const g = (name: string): string => got.get(name) ?? '';
    expect(g('encryption_data')).toBe(sha(g('merchant_id'), g('account_id'), g('order_no'), g('currency'), g('amount'), g('transaction_id'), g('order_status')));
  });

  describe('with the fixture transactions in the ledger', () => {
    beforeEach(async () => {
      const ledger = gw.sandbox.ledger;
      if (!(ledger instanceof LedgerStore)) throw new Error('the sandbox ledger is a LedgerStore');
      ledger.reset();
      expect((await send(gw.baseUrl, authoriseFixture)).status).toBe(200);
      const paid = ledger.transaction('ORD-1001');
      if (paid === undefined) throw new Error('the fixture payment was not recorded');
      ledger.reset();
      // The fixtures name their own transaction ids: the same payment, under those ids.
      ledger.saveTransaction({ ...paid, transactionId: FIXTURE_TRANSACTION_ID, details: { ...paid.details, shopper_phone: '+31201234567' } });
      ledger.saveTransaction({ ...paid, transactionId: FIXTURE_TRANSACTION_ID_2, orderNo: 'ORD-1002' });
    });

    it('query: answers the form request unsigned, with the fixture shape and the fraud fields at the top level', async () => {
      const reply = await send(gw.baseUrl, queryFixture);
      expect(reply.status).toBe(200);
      const body = JSON.parse(reply.text) as Record<string, unknown> & { orders_list: Record<string, unknown>[] };
      const fixture = JSON.parse(queryFixture.reply.body) as Record<string, unknown> & { orders_list: Record<string, unknown>[] };
      expect(shape(body)).toEqual(shape(fixture));
      expect(body).not.toHaveProperty('encryption_data');
      const { transaction_date: _d, ...order } = body.orders_list[0] ?? {};
      const { transaction_date: _f, delivery_information: _i, ...fixtureOrder } = fixture.orders_list[0] ?? {};
      expect(order).toMatchObject(fixtureOrder);
      expect(body.orders_list[0]?.transaction_date).toMatch(/^\d{14}$/);
      expect(body).toMatchObject({ antifraud_provider: fixture.antifraud_provider, fraud_check_result: fixture.fraud_check_result, is3ds: fixture.is3ds });
    });

    it('refund: echoes the fixture signature and answers the element as the fixture', async () => {
      const reply = await send(gw.baseUrl, refundFixture);
      expect(reply.status).toBe(200);
      const body = JSON.parse(reply.text) as Record<string, unknown> & { refund_orders: Record<string, unknown>[] };
      const fixture = JSON.parse(refundFixture.reply.body) as Record<string, unknown> & { refund_orders: Record<string, unknown>[] };
      expect(shape(body)).toEqual(shape(fixture));
      expect(body.encryption_data).toBe(refundFixture.request.encryption_data);
      const { refund_reference: reference, ...element } = body.refund_orders[0] ?? {};
      const { refund_reference: _r, ...fixtureElement } = fixture.refund_orders[0] ?? {};
      expect(element).toEqual(fixtureElement);
      expect(reference).toMatch(/^[A-Z0-9]{1,50}$/);
    });

    it('updateOrders: answers with exactly the fixture reply, the bare envelope', async () => {
      const reply = await send(gw.baseUrl, updateOrdersFixture);
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.text)).toEqual(JSON.parse(updateOrdersFixture.reply.body));
    });
  });

  it('cancelsubscription: accepts the application/json request, answers with the fixture shape and echo; refuses a form label', async () => {
    const reply = await send(gw.baseUrl, cancelSubscriptionFixture);
    expect(reply.status).toBe(200);
    const body = JSON.parse(reply.text) as Record<string, unknown>;
    expect(shape(body)).toEqual(shape(JSON.parse(cancelSubscriptionFixture.reply.body)));
    expect(body.encryption_data).toBe(cancelSubscriptionFixture.request.encryption_data);
    const asForm = await send(gw.baseUrl, cancelSubscriptionFixture, 'application/x-www-form-urlencoded');
    expect(asForm.status).toBe(400);
  });

  it('cancelsubscription: the same fields as a flat XML body are accepted too', async () => {
    const fields = cancelSubscriptionFixture.request as Record<string, string>;
    const xml = `<?xml version="1.0" encoding="UTF-8"?><request>${Object.entries(fields).map(([k, v]) => `<${k}>${v}</${k}>`).join('')}</request>`;
    const response = await fetch(gw.baseUrl + cancelSubscriptionFixture.path, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: xml });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ recurring_id: fields.recurring_id, encryption_data: fields.encryption_data, cancel_status: '0' });
  });

  it('payout: reads the digits as whole units by default and answers with the fixture reply', async () => {
    const reply = await send(gw.baseUrl, payoutFixture);
    expect(reply.status).toBe(200);
    expectPayoutReply(JSON.parse(reply.text) as Record<string, unknown>, payoutFixture);
  });

  it("payout: with payoutAmountUnit 'minor' the digits are minor units", async () => {
    const minor = await start({ payoutAmountUnit: 'minor' });
    try {
      const reply = await send(minor.baseUrl, payoutMinorFixture);
      expect(reply.status).toBe(200);
      expectPayoutReply(JSON.parse(reply.text) as Record<string, unknown>, payoutMinorFixture);
    } finally {
      await minor.close();
    }
  });

  it('payout: a decimal payment_amount is refused naming the field', async () => {
    const requestId = '5b0e8a8e-7f0a-4d3a-9c55-1d2b3c4d5e6f';
    const signed = sha(FIXTURE_ACCOUNT.merchantId, FIXTURE_ACCOUNT.accountId, requestId, 'EUR', '100.00');
    const decimal = { ...payoutFixture, request: { ...payoutFixture.request, request_id: requestId, payment_amount: '100.00', encryption_data: signed } };
    const reply = await send(gw.baseUrl, decimal);
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toMatchObject({ code: 'I0001', source: 'payment_amount' });
  });
});

const GENERATED = ['created_at', 'last_updated_at', 'payer_id', 'transaction_id', 'short_reference_id'];

function expectPayoutReply(body: Record<string, unknown>, fixture: WireFixture): void {
  const expected = JSON.parse(fixture.reply.body) as Record<string, unknown>;
  expect(shape(body)).toEqual(shape(expected));
  const strip = (o: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(o).filter(([k]) => !GENERATED.includes(k)));
  expect(strip(body)).toEqual(strip(expected));
  expect(body.short_reference_id).toMatch(/^\d{8}-[A-Z0-9]{6}$/);
  expect(body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
}
