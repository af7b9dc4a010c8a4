/**
 * A payment in the kit's terms becomes the wire request of its method in one place: money in
 * minor units goes in, the wire's decimals come out, and a subscription plan stored before plans
 * were in minor units (a decimal string) still maps to the same wire amount.
 */
import { describe, expect, it } from 'vitest';
import { createGatewayClient } from '../../../server/gateway/client.js';
import { createPaymentSchema } from '../../../server/checkout/payments.js';
import { mapPaymentRequest, optimiseInput, type PaymentRequest } from '../../../server/gateway/payment-request.js';
import { encodeItems, encodedItemsLength } from '../../../server/gateway/items.js';
import { currencyExponent } from '../../../server/gateway/money.js';

const client = createGatewayClient({ baseUrl: 'https://gateway.example', merchantId: '701001', accountId: '701001010', signKey: 'test-key' });

const base: PaymentRequest = {
  orderNo: 'KL-1',
  amount: 990,
  currency: 'EUR',
  items: [{ name: 'Tea club', sku: 'TC', unitPrice: 990, quantity: 1 }],
  website: 'shop.example',
  shopper: { id: 's-1', email: 'ada@example.com', ip: '192.0.2.1', firstName: 'Ada', lastName: 'Lovelace' },
  billing: { country: 'NL', city: 'Utrecht', postalCode: '3511' },
  device: { userAgent: 'Mozilla/5.0', accept: 'text/html', platformSource: 'WEB', deviceType: 'PC', orderType: 'WEB', browser: { os: 'Linux', time_zone: '' } },
  notifyUrl: 'https://shop.example/checkout/notify',
  subscription: { contract_name: 'Tea club', contract_amount: 990, interval: 'month', interval_count: 1 },
  method: { kind: 'hosted', returnUrl: 'https://shop.example/r', cancelUrl: 'https://shop.example/c', threeDS: 'do3DS', language: 'nl' },
  checkoutTime: 1_780_000_000,
};

describe('payment request mapping', () => {
  it('hosted: minor units in, the wire decimals and names out, empty values left out', () => {
    const prepared = client.payments.prepare(base);
    if (prepared.kind !== 'hosted') throw new Error('expected the hosted form');
    const f = prepared.form.fields;
    expect(prepared.form.action).toBe('https://gateway.example/v1/checkout');
    expect(f).toMatchObject({
      order_no: 'KL-1', amount: '9.90', currency: 'EUR', items: 'Tea club#,#TC#,#9.90#,#1', shopper_ip: '192.0.2.1',
      billing_country: 'NL', billing_city: 'Utrecht', billing_postal_code: '3511', first_name: 'Ada', last_name: 'Lovelace',
      return_url: 'https://shop.example/r', cancel_url: 'https://shop.example/c', default_lang: 'nl', open3d: 'do3DS', os: 'Linux',
    });
    expect(f.time_zone).toBeUndefined();
    expect(JSON.parse(f.subscription ?? '')).toEqual({ contract_name: 'Tea club', contract_amount: '9.90', interval: 'month', interval_count: '1' });
  });

  it('reads a plan stored with a decimal contract_amount the same way', () => {
    const legacy = client.payments.prepare({ ...base, subscription: { ...base.subscription, contract_amount: '9.90' } });
    const current = client.payments.prepare(base);
    if (legacy.kind !== 'hosted' || current.kind !== 'hosted') throw new Error('expected the hosted form');
    expect(legacy.form.fields.subscription).toBe(current.form.fields.subscription);
  });

  it('card: card data, holder, 3-D Secure and the challenge fields; APM: the method and return URL', () => {
    const card = mapPaymentRequest({
      ...base,
      method: { kind: 'card', number: '4242424242424242', expiryMonth: '05', expiryYear: '2030', securityCode: '123', holder: { firstName: 'Ada', lastName: 'L' }, threeDS: 'no3DS', returnUrl: 'https://shop.example/r' },
    });
    expect(card.kind).toBe('card');
    expect(card.input).toMatchObject({ card: '4242424242424242', expiration_month: '05', expiration_year: '2030', security_code: '123', last_name: 'L', open3d: 'no3DS', user_agent: 'Mozilla/5.0' });
    const prepared = client.payments.prepare({ ...base, method: { kind: 'card', number: '4242424242424242', expiryMonth: '05', expiryYear: '2030', securityCode: '123', holder: { firstName: 'Ada', lastName: 'L' }, threeDS: 'do3DS', returnUrl: 'https://shop.example/r' } });
    expect(prepared.kind === 'card' && prepared.challengeFields).toEqual({ return_url: 'https://shop.example/r', notify_url: 'https://shop.example/checkout/notify' });

    const apm = mapPaymentRequest({ ...base, subscription: undefined, method: { kind: 'apm', paymentMethod: 'IDEAL', returnUrl: 'https://shop.example/r' } });
    expect(apm.input).toMatchObject({ payment_method: 'IDEAL', return_url: 'https://shop.example/r', first_name: 'Ada' });
    expect(apm.input).not.toHaveProperty('user_agent');
  });

  it('optimise input: shopper and platform under their wire names, money still minor units', () => {
    expect(optimiseInput({ amount: 990, currency: 'EUR', shopper: { id: 's-1', email: 'a@b.test', ip: '' }, country: 'NL', platform: 'WEB' }))
      .toEqual({ amount: 990, currency: 'EUR', shopper_id: 's-1', shopper_email: 'a@b.test', shopper_country: 'NL', platform: 'WEB' });
  });
});

describe('createPayment money rules in one parse', () => {
  const order = { orderNo: 'KL-2', amount: 990, currency: 'EUR', items: [{ name: 'Tea', sku: 'T', unitPrice: 990, quantity: 1 }], shopper: { id: 's', email: 'a@b.test' } };
  const plan = { contract_name: 'Tea club', interval: 'month', interval_count: '1' };

  it('takes contract_amount in minor units and refuses the decimal string', () => {
    expect(createPaymentSchema.safeParse({ ...order, subscription: { ...plan, contract_amount: 990 } }).success).toBe(true);
    const refused = createPaymentSchema.safeParse({ ...order, subscription: { ...plan, contract_amount: '9.90' } });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.path).toEqual(['subscription', 'contract_amount']);
  });

  it('counts the encoded items length exactly as the codec writes it', () => {
    for (const currency of ['EUR', 'JPY', 'KWD']) {
      const items = [{ name: 'Tea', sku: '', unitPrice: 5, quantity: 12 }, { name: 'Pot', sku: 'P-1', unitPrice: 123456, quantity: 1 }];
      expect(encodedItemsLength(items, currencyExponent(currency))).toBe(encodeItems(items, currency).length);
    }
    const long = { ...order, amount: 100, items: Array.from({ length: 100 }, () => ({ name: 'n'.repeat(40), sku: 's', unitPrice: 1, quantity: 1 })) };
    expect(createPaymentSchema.safeParse(long).error?.issues[0]?.path).toEqual(['items']);
  });
});
