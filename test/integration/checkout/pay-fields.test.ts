/**
 * Every optional payment field end to end over real HTTP: createPayment with all of them, the
 * shopper pays through the kit's pay route, and the request that reaches the sandbox (recorded
 * by a pass-through proxy in front of it) holds each field in wire format; the sandbox accepts
 * it. Also: the pay page asks for the payer's document only for Pix/boleto, checks it on the
 * server, and the hosted page's default_lang follows the order's language.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../../server/orders/types.js';
import { ALL_DETAILS } from '../../fixtures/payment-details.js';
import { apmFullPersonRequest, directAllFieldsRequest, fullPerson } from '../../fixtures/wire/payment-fields.js';
import {
  ACCOUNT_ID, Browser, cardFields, CARD, MERCHANT_ID, onlyForm, payForm, SIGN_KEY, startHarness, uniqueOrderNo, type Harness,
} from './journeys-harness.js';

interface Recorded {
  path: string;
  body: string;
}

/** Forwards every request to `target` unchanged (Host included, so the sandbox's URLs name the proxy) and records it. */
async function startProxy(): Promise<{ url: string; recorded: Recorded[]; setTarget(url: string): void; close(): Promise<void> }> {
  let target = '';
  const recorded: Recorded[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      recorded.push({ path: req.url ?? '', body: body.toString('utf8') });
      const to = new URL(req.url ?? '/', target);
      const upstream = httpRequest(to, { method: req.method, headers: req.headers }, (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    recorded,
    setTarget: (url) => {
      target = url;
    },
    close: () => new Promise<void>((resolve) => {
      server.close(() => { resolve(); });
      server.closeAllConnections();
    }),
  };
}

let h: Harness;
let proxy: Awaited<ReturnType<typeof startProxy>>;

beforeAll(async () => {
  proxy = await startProxy();
  h = await startHarness({ gateway: { baseUrl: proxy.url, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY, timeoutMs: 5000 } });
  proxy.setTarget(h.gateway.baseUrl);
});

afterAll(async () => {
  await h.close();
  await proxy.close();
});

/** A BRL order carrying every optional field (amount 25.05: 2 × 12.50 + 0.05). */
function fullInput(orderNo: string, locale?: string): Parameters<Harness['kit']['createPayment']>[0] {
  return {
    orderNo,
    amount: 2505,
    currency: 'BRL',
    items: [{ name: 'Tea', sku: 'TEA-1', unitPrice: 1250, quantity: 2 }, { name: 'Bag', sku: 'B', unitPrice: 5, quantity: 1 }],
    shopper: { id: 'SHOPPER-7', email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', document: '12345678909', birthDate: '1990-12-31' },
    delivery: { country: 'BR', city: 'São Paulo', districtName: 'Centro', streetName: 'Rua A' },
    ...(locale === undefined ? {} : { locale }),
    ...ALL_DETAILS,
  };
}

/** The JSON body of the last authorise the sandbox received for this order. */
function authoriseBody(orderNo: string): Record<string, unknown> {
  const bodies = proxy.recorded
    .filter((r) => r.path === '/v1/authorise')
    .map((r) => JSON.parse(r.body) as Record<string, unknown>)
    .filter((b) => b.order_no === orderNo);
  const last = bodies.at(-1);
  if (last === undefined) throw new Error(`no authorise for ${orderNo}`);
  return last;
}

const WIRE_EXTRAS = ['merchant_id', 'account_id', 'order_no', 'encryption_data', 'website', 'shopper_ip'];
/** The fixture's fields, minus identity, signature, site and shopper IP, which differ per order and shop. */
function fixtureFields(fixture: Record<string, unknown>, drop: string[] = []): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fixture).filter(([key]) => !WIRE_EXTRAS.includes(key) && !drop.includes(key)));
}

async function stored(orderId: string): Promise<Order> {
  const order = await h.kit.store.get(orderId);
  if (order === null) throw new Error('order vanished');
  return order;
}

describe('every optional field from createPayment to the wire', () => {
  it('stores the details with the order, in the kit\'s terms', async () => {
    const { order } = await h.kit.createPayment(fullInput(uniqueOrderNo('store')));
    const data = (await stored(order.id)).data;
    expect(data).toMatchObject({ person: ALL_DETAILS.person, cartItems: ALL_DETAILS.cartItems, accountOwner: ALL_DETAILS.accountOwner, cardType: 'amex' });
    expect(data.shopper).toMatchObject({ document: '12345678909', birthDate: '1990-12-31' });
  });

  it('card: the direct request carries document, birth date and every risk field, as the hand-written fixture', async () => {
    const orderNo = uniqueOrderNo('card-all');
    const { order, payUrl } = await h.kit.createPayment(fullInput(orderNo));
    const browser = new Browser();
    const page = await browser.get(payUrl);
    await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
    const wire = authoriseBody(orderNo);
    // The fixture has one cart item; the order has two, so cart_items is compared on its own.
    expect(wire).toMatchObject(fixtureFields(directAllFieldsRequest, [
      'cart_items', 'card', 'expiration_month', 'expiration_year', 'security_code', 'open3d', 'delivery_city',
    ]));
    expect((wire.cart_items as unknown[])[0]).toEqual((directAllFieldsRequest.cart_items as unknown[])[0]);
    expect(wire).not.toHaveProperty('person');
    expect((await stored(order.id)).state).toBe('paid');
  });

  it('APM: a Pix request with the whole person tree, bank code, district and street, as the fixture', async () => {
    const orderNo = uniqueOrderNo('pix-all');
    const { order, payUrl } = await h.kit.createPayment(fullInput(orderNo));
    const browser = new Browser();
    const page = await browser.get(payUrl);
    // The order already holds the payer's document: the form shows it; what the shopper types replaces those fields.
    expect(payForm(page, 'apm').html).toMatch(/name="person_document_number"[^>]*value="12345678909"/);
    expect(payForm(page, 'apm').html).toMatch(/name="person_birth_date"[^>]*value="1990-12-31"/);
    const issuer = await browser.submit(page, payForm(page, 'apm'), {
      payment_method: 'PIX', person_document_type: 'CPF', person_document_number: '123.456.789-09', person_birth_date: '1990-12-31',
    });
    expect(issuer.status).toBe(200);
    const wire = authoriseBody(orderNo);
    expect(wire).toMatchObject(fixtureFields(apmFullPersonRequest, ['return_url', 'delivery_city']));
    expect(wire.person).toEqual(fullPerson);
    for (const key of ['cart_items', 'account_owner', 'installments', 'storefront_domains']) expect(wire).not.toHaveProperty(key);
    expect((await stored(order.id)).state).toBe('requires_action');
  });

  it('hosted: the form the browser posts carries card_type, default_lang from the order\'s language and the risk fields', async () => {
    const orderNo = uniqueOrderNo('hosted-all');
    const { payUrl } = await h.kit.createPayment(fullInput(orderNo, 'es'));
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const redirect = await browser.submit(page, payForm(page, 'hosted'));
    const form = onlyForm(redirect);
    expect(form.fields).toMatchObject({ card_type: '4', default_lang: 'es', document: '12345678909', birth_date: '31-12-1990', installments: '3', quote_id: 'quote-1' });
    expect(JSON.parse(form.fields.cart_items ?? '[]')).toHaveLength(2);
    expect(form.fields).not.toHaveProperty('person');
    // The sandbox accepts the form as posted.
    const hostedPage = await browser.submit(redirect, form);
    expect(hostedPage.status).toBe(200);
    expect(h.sandbox.ledger.transaction(orderNo)?.details.default_lang).toBe('es');
  });
});

describe('the payer data a Pix payment needs', () => {
  const basic = (orderNo: string): Parameters<Harness['kit']['createPayment']>[0] => ({
    orderNo, amount: 2500, currency: 'BRL', items: [{ name: 'Tea', sku: 'T', unitPrice: 1250, quantity: 2 }],
    shopper: { id: 's-9', email: 'bia@example.com' }, billing: { country: 'BR' },
  });

  it('the APM form offers the document fields; without them Pix is refused by the kit (400), nothing sent', async () => {
    const orderNo = uniqueOrderNo('pix-missing');
    const { order, payUrl } = await h.kit.createPayment(basic(orderNo));
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const apm = payForm(page, 'apm');
    expect(apm.html).toContain('name="person_document_number"');
    expect(apm.html).toContain('name="person_document_type"');
    const authorises = (): number => proxy.recorded.filter((r) => r.path === '/v1/authorise').length;
    const sent = authorises();
    const again = await browser.submit(page, apm, { payment_method: 'PIX', person_document_number: '' });
    expect(again.status).toBe(400);
    expect(again.html).toContain('id="person_document_number-error"');
    expect(authorises()).toBe(sent);
    expect((await stored(order.id)).state).toBe('created');
  });

  it('a wrong-length CPF is refused naming the field; the typed values are shown again', async () => {
    const { payUrl } = await h.kit.createPayment(basic(uniqueOrderNo('pix-short')));
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const again = await browser.submit(page, payForm(page, 'apm'), { payment_method: 'PIX', person_document_type: 'CPF', person_document_number: '1234' });
    expect(again.status).toBe(400);
    expect(again.html).toContain('id="person_document_number-error"');
    expect(payForm(again, 'apm').html).toMatch(/name="person_document_number"[^>]*value="1234"/);
  });

  it('iDEAL needs none of it: the empty document fields are ignored and nothing of person is sent', async () => {
    const orderNo = uniqueOrderNo('ideal-plain');
    const { payUrl } = await h.kit.createPayment(basic(orderNo));
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const issuer = await browser.submit(page, payForm(page, 'apm'), { payment_method: 'IDEAL', person_document_number: 'not digits' });
    expect(issuer.status).toBe(200);
    expect(authoriseBody(orderNo)).not.toHaveProperty('person');
  });

  it('boleto with a CNPJ typed by the shopper: person.document_number and document_type reach the sandbox', async () => {
    const orderNo = uniqueOrderNo('boleto');
    const { payUrl } = await h.kit.createPayment(basic(orderNo));
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const issuer = await browser.submit(page, payForm(page, 'apm'), {
      payment_method: 'BOLETO', person_document_type: 'CNPJ', person_document_number: '11.222.333/0001-81', person_phone: '+55 11 91234 5678',
    });
    expect(issuer.status).toBe(200);
    expect(authoriseBody(orderNo).person).toEqual({ document_number: '11222333000181', document_type: 'CNPJ', phone_number: '5511912345678' });
  });
});
