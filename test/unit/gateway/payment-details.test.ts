/**
 * Every optional payment field in the kit's terms maps to its wire field: money in minor units
 * becomes the wire's decimal, ISO dates become the birth-date format, and each request (direct,
 * APM, hosted) carries only the fields the interface lists for it. The client's own wire schemas
 * then accept the result (prepare validates and signs).
 */
import { describe, expect, it } from 'vitest';
import { createPaymentSchema } from '../../../server/checkout/payments.js';
import { createGatewayClient } from '../../../server/gateway/client.js';
import { ALL_DETAILS } from '../../fixtures/payment-details.js';
import { mapPaymentRequest, type PaymentRequest } from '../../../server/gateway/payment-request.js';
import { zodIssuesToFields } from '../../../server/gateway/schemas/common.js';

const client = createGatewayClient({ baseUrl: 'https://gateway.example', merchantId: '701001', accountId: '701001010', signKey: 'test-key' });

const base: PaymentRequest = {
  orderNo: 'KL-7',
  amount: 2505,
  currency: 'BRL',
  items: [{ name: 'Tea', sku: 'TEA-1', unitPrice: 1250, quantity: 2 }, { name: 'Bag', sku: 'B', unitPrice: 5, quantity: 1 }],
  website: 'shop.example',
  shopper: { id: 's-7', email: 'ada@example.com', ip: '192.0.2.1', document: '12345678909', birthDate: '1990-12-31' },
  delivery: { country: 'BR', city: 'São Paulo', districtName: 'Centro', streetName: 'Rua A' },
  device: {},
  notifyUrl: 'https://shop.example/notify',
  method: { kind: 'hosted', returnUrl: 'https://shop.example/r', cancelUrl: 'https://shop.example/c', threeDS: 'do3DS', language: 'pt' },
  checkoutTime: 1_780_000_000,
  details: ALL_DETAILS,
};

const card: PaymentRequest['method'] = {
  kind: 'card', number: '4242424242424242', expiryMonth: '05', expiryYear: '2039', securityCode: '123',
  holder: { firstName: 'Ada', lastName: 'L' }, threeDS: 'do3DS', returnUrl: 'https://shop.example/r',
};

const RISK_WIRE = {
  installments: '3',
  installments_id: 'INST-9',
  antifraud_token_cookie: 'af-cookie-1',
  cart_items: [
    { basic_item_data: { name: 'Tea', quantity: '2', type: 'physical', price: { amount_usd: 13.7, amount_local_currency: 12.5, currency: 'BRL' }, category: 'Food', productId: 'TEA-1' } },
    { basic_item_data: { quantity: '1', price: { amount_local_currency: 0.05, currency: 'BRL' } } },
  ],
  account_owner: [{
    first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', account_id: 'acc-7', created: 1_700_000_000,
    past_orders_count: 4, past_orders_sum: 123.45, lastLogin_ip: '192.0.2.9', registration_ip: '2001:db8::1',
  }],
  total_discount: [{ coupon_code_used: 'WELCOME', discount_type: 'percentage' }],
  additional_information: [{ mpi_info: { eci: '05', cavv: 'AAAB', xid: 'XID-1', dsTransID: 'ds-1' } }],
  price_id: 'price-1',
  quote_id: 'quote-1',
  quote_price: '1.0825',
  storefront_domains: 'shop.example,www.shop.example',
};

const PERSON_WIRE = {
  document_number: '12345678909', document_type: 'CPF', social_name: 'Ada L', email: 'ada@example.com',
  phone_country_code: 'BR', phone_area_code: '11', phone_number: '912345678', birth_date: '31-12-1990',
  net_monthly_average_income: '5000.00',
  address_street: 'Rua A', address_number: '10', address_complement: 'ap 2', address_postal_code: '01000-000',
  address_city: 'São Paulo', address_state: 'SP', address_country: 'BR', fiscal_country: 'BR',
  documents: {
    file_type: 'image/png', file_data: 'iVBORw0KGgo=', file_url: 'https://files.example/id.png',
    labels: {
      person_bank_account_id: 'pba-1',
      bank_account: {
        account_type: 'checking', account_number: '12345-6', branch_number: '0001', owner_document_number: '12345678909',
        owner_name: 'Ada L', branch_country: 'BR', currency: 'BRL', bank: { code: '341', name: 'Itaú' },
      },
    },
  },
};

const APM_ONLY = ['person', 'bank_code', 'delivery_district_name', 'delivery_street_name'];

describe('payment details → wire fields', () => {
  it('direct: document, birth date and every risk field in wire names and formats; no APM or hosted fields', () => {
    const mapped = mapPaymentRequest({ ...base, method: card });
    expect(mapped.input).toMatchObject({ document: '12345678909', birth_date: '31-12-1990', ...RISK_WIRE });
    for (const key of [...APM_ONLY, 'card_type', 'default_lang']) expect(mapped.input).not.toHaveProperty(key);
    const prepared = client.payments.prepare({ ...base, method: card });
    if (prepared.kind !== 'card') throw new Error('expected a card payment');
    const wire = prepared.authorise.wire;
    expect(wire).toMatchObject({ document: '12345678909', birth_date: '31-12-1990', ...RISK_WIRE });
  });

  it('APM: person (the whole tree), bank code, delivery district and street; no risk fields', () => {
    const apm: PaymentRequest = { ...base, method: { kind: 'apm', paymentMethod: 'PIX', returnUrl: 'https://shop.example/r' } };
    const mapped = mapPaymentRequest(apm);
    expect(mapped.input).toMatchObject({
      payment_method: 'PIX', document: '12345678909', birth_date: '31-12-1990', bank_code: '341',
      delivery_district_name: 'Centro', delivery_street_name: 'Rua A', person: PERSON_WIRE,
    });
    for (const key of Object.keys(RISK_WIRE)) expect(mapped.input).not.toHaveProperty(key);
    const prepared = client.payments.prepare(apm);
    if (prepared.kind !== 'apm') throw new Error('expected an APM payment');
    expect(prepared.authorise.wire).toMatchObject({ person: PERSON_WIRE, bank_code: '341' });
  });

  it('hosted: card_type from the brand, default_lang from the language, risk fields; no APM fields', () => {
    const prepared = client.payments.prepare(base);
    if (prepared.kind !== 'hosted') throw new Error('expected the hosted form');
    const f = prepared.form.fields;
    expect(f).toMatchObject({ card_type: '4', default_lang: 'pt', document: '12345678909', birth_date: '31-12-1990', installments: '3', storefront_domains: 'shop.example,www.shop.example' });
    expect(JSON.parse(f.cart_items ?? '')).toEqual(RISK_WIRE.cart_items);
    expect(JSON.parse(f.account_owner ?? '')).toEqual(RISK_WIRE.account_owner);
    for (const key of APM_ONLY) expect(f).not.toHaveProperty(key);
  });

  it('brands map to the published card_type codes', () => {
    const codes = (['visa', 'mastercard', 'jcb', 'amex', 'diners', 'maestro'] as const).map((cardType) => {
      const mapped = mapPaymentRequest({ ...base, details: { cardType } });
      return mapped.kind === 'hosted' ? mapped.input.card_type : undefined;
    });
    expect(codes).toEqual(['1', '2', '3', '4', '5', '6']);
  });

  it('a payment without details sends none of these fields', () => {
    const mapped = mapPaymentRequest({ ...base, shopper: { id: 's', email: 'a@example.com', ip: '192.0.2.1' }, delivery: undefined, details: undefined });
    for (const key of [...Object.keys(RISK_WIRE), ...APM_ONLY, 'card_type', 'document', 'birth_date']) expect(mapped.input).not.toHaveProperty(key);
  });
});

describe('createPayment input for the details', () => {
  const order = {
    orderNo: 'KL-7', amount: 2505, currency: 'BRL',
    items: [{ name: 'Tea', sku: 'TEA-1', unitPrice: 1250, quantity: 2 }, { name: 'Bag', sku: 'B', unitPrice: 5, quantity: 1 }],
    shopper: { id: 's-7', email: 'ada@example.com' },
  };
  const fieldsOf = (input: unknown): string[] => {
    const parsed = createPaymentSchema.safeParse(input);
    return parsed.success ? [] : zodIssuesToFields(parsed.error).map((i) => i.field);
  };

  it('accepts every field at once', () => {
    expect(fieldsOf({ ...order, ...ALL_DETAILS, shopper: { ...order.shopper, document: '1', birthDate: '1990-12-31' }, delivery: { country: 'BR', districtName: 'Centro', streetName: 'Rua A' } })).toEqual([]);
  });

  it('names the merchant field that is wrong', () => {
    expect(fieldsOf({ ...order, shopper: { ...order.shopper, birthDate: '31-12-1990' } })).toEqual(['shopper.birthDate']);
    expect(fieldsOf({ ...order, shopper: { ...order.shopper, birthDate: '2001-02-29' } })).toEqual(['shopper.birthDate']);
    expect(fieldsOf({ ...order, person: { documentNumber: '' } })).toEqual(['person.documentNumber']);
    expect(fieldsOf({ ...order, person: { phone: { country: 'brazil' } } })).toEqual(['person.phone.country']);
    expect(fieldsOf({ ...order, cartItems: [{ quantity: 1, price: 12.5 }] })).toEqual(['cartItems[0].price']);
    expect(fieldsOf({ ...order, accountOwner: { pastOrdersSum: -1 } })).toEqual(['accountOwner.pastOrdersSum']);
    expect(fieldsOf({ ...order, cardType: 'discover' })).toEqual(['cardType']);
    expect(fieldsOf({ ...order, storefrontDomains: ['shop example'] })).toEqual(['storefrontDomains[0]']);
    expect(fieldsOf({ ...order, person: { documents: { labels: { bankAccount: { bank: { swift: 'X' } } } } } })).toEqual(['person.documents.labels.bankAccount.bank.swift']);
    expect(fieldsOf({ ...order, billing: { country: 'BR', districtName: 'Centro' } })).toEqual(['billing.districtName']);
  });
});
