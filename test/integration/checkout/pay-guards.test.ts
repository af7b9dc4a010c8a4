/**
 * The pay route's guards against a misbehaving browser or gateway: the request on the wire
 * takes money and items from the stored order only, the rate limit trips at its threshold,
 * and timeouts, resets, 5xx and unreadable answers leave the order pending (never re-sent).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../../server/orders/types.js';
import {
  Browser, CARD, cardFields, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness,
} from './journeys-harness.js';

const LIMIT = 3;
const authoriseBodies: Record<string, unknown>[] = [];

/** Records the JSON body of every authorise call the kit's client makes, then sends it on. */
const recordingFetch: typeof fetch = async (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  if (url.endsWith('/v1/authorise') && typeof init?.body === 'string') {
    authoriseBodies.push(JSON.parse(init.body) as Record<string, unknown>);
  }
  return fetch(input, init);
};

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ fetch: recordingFetch });
});

afterAll(async () => {
  await h.close();
});

async function stored(orderId: string): Promise<Order> {
  const order = await h.kit.store.get(orderId);
  if (!order) throw new Error('order vanished');
  return order;
}

describe('the request on the wire', () => {
  it('takes amount, currency and items from the order, device data from the form and the request', async () => {
    const { order, payUrl } = await h.kit.createPayment(paymentInput(uniqueOrderNo('wire')));
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const device = {
      os: 'Android', browser: 'Chrome', browser_lang: 'nl-NL', time_zone: '-60', resolution: '412x915', color_depth: '24',
      cookie_new: 'c'.repeat(32), cookie_old: '', device_fingerprint: 'ab'.repeat(32), session_id: 'd'.repeat(32), challenge_window_size: '02',
    };
    const tampered = { amount: '0.01', currency: 'JPY', items: 'Free#,#X#,#0.01#,#1', order_no: 'someone-else', shopper_email: 'evil@example.test' };
    const res = await browser.submit(page, payForm(page, 'card'), { ...cardFields(CARD.approve), ...device, ...tampered, resolution: 'bogus' });
    expect(res.trail[1]).toContain('/checkout/result/');

    const body = authoriseBodies.find((b) => b.order_no === order.orderNo);
    expect(body).toMatchObject({
      order_no: order.orderNo, amount: '25.00', currency: 'USD', items: 'Tea pot#,#TP-1#,#12.50#,#2',
      shopper_email: 'shopper@example.test', website: 'shop.test', open3d: 'do3DS',
      notify_url: `${h.shopUrl}/checkout/notify`,
      os: 'Android', browser: 'Chrome', browser_lang: 'nl-NL', time_zone: '-60', color_depth: '24',
      device_fingerprint: 'ab'.repeat(32), session_id: 'd'.repeat(32), challenge_window_size: '02', cookie_new: 'c'.repeat(32),
      shopper_ip: '127.0.0.1', accept: 'text/html', device_type: 'PC', order_type: 'WEB', platform_source: 'WEB',
    });
    // A bad browser value is dropped, not sent and not fatal.
    expect(body).not.toHaveProperty('resolution');
    expect(body).not.toHaveProperty('cookie_old');
    expect((await stored(order.id)).state).toBe('paid');
  });
});

describe('gateway failures after the order was submitted', () => {
  it.each([
    // kind, attention flag, state after the sweeper's query (did the gateway take the payment?)
    ['reset', null, 'paid'],
    ['http500', null, 'pending'],
    ['malformed', 'could not be trusted', 'paid'],
  ] as const)('%s: the order is pending, the shopper sees the result page, nothing is re-sent', async (kind, attention, settled) => {
    const { order, payUrl } = await h.kit.createPayment(paymentInput(uniqueOrderNo(`fault-${kind}`)));
    h.sandbox.faults.add({ kind, operation: 'authorise', orderNo: order.orderNo, times: 1 });
    // The gateway took the payment; its notification would settle the order, so keep it away.
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo: order.orderNo });
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const sentBefore = authoriseBodies.filter((b) => b.order_no === order.orderNo).length;
    const res = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
    expect(res.trail[1]).toContain('/checkout/result/');
    expect(res.html).toContain('Confirming your payment');
    const after = await stored(order.id);
    expect(after.state).toBe('pending');
    expect(typeof after.data.submittedAt).toBe('string');
    if (attention === null) expect(after.attention).toBeNull();
    else expect(after.attention).toContain(attention);
    expect(authoriseBodies.filter((b) => b.order_no === order.orderNo).length - sentBefore).toBe(1);
    // A second POST does not try again.
    await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
    expect(authoriseBodies.filter((b) => b.order_no === order.orderNo).length - sentBefore).toBe(1);
    // The sweeper's query settles it from what the gateway really did.
    await h.kit.sweeper.runOnce();
    expect((await stored(order.id)).state).toBe(settled);
    expect(h.sandbox.ledger.transactions().filter((t) => t.orderNo === order.orderNo)).toHaveLength(settled === 'paid' ? 1 : 0);
  });
});

describe('optimise unavailable', () => {
  it('shows the pay page without the APM list; card and hosted still work', async () => {
    const { order, payUrl } = await h.kit.createPayment(paymentInput(uniqueOrderNo('no-apm')));
    h.sandbox.faults.add({ kind: 'http500', operation: 'optimise', times: 1 });
    const browser = new Browser();
    const page = await browser.get(payUrl);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Other payment methods are not available right now.');
    expect(page.html).not.toContain('name="payment_method"');
    const res = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
    expect(res.trail[1]).toContain('/checkout/result/');
    expect((await stored(order.id)).state).toBe('paid');
    expect(h.logs.some((line) => line.includes('Payment methods unavailable') && line.includes(order.orderNo))).toBe(true);
  });
});

describe('a payment the gateway surely refused', () => {
  it('marks the order failed and explains; no money was taken', async () => {
    const { order, payUrl } = await h.kit.createPayment(paymentInput(uniqueOrderNo('refused')));
    // The account already used this order_no, so the gateway answers 400 I0002.
    await h.kit.client.payments.authorise({
      order_no: order.orderNo, amount: 100, currency: 'USD', website: 'shop.test',
      items: [{ name: 'Other', sku: 'O', unitPrice: 100, quantity: 1 }],
      shopper_id: 'x', shopper_email: 'x@example.test', shopper_ip: '192.0.2.1', card: CARD.approve,
      expiration_month: '12', expiration_year: String(new Date().getFullYear() + 2), security_code: '123',
    });
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const res = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
    expect(res.status).toBe(502);
    expect(res.html).toContain('The payment could not be started');
    expect(res.html).toContain('No money was taken');
    const after = await stored(order.id);
    expect(after.state).toBe('failed');
    expect(after.data).toMatchObject({ resultCode: 'I0002' });
    expect(h.hookCount('onFailed', order.orderNo)).toBe(1);
  });
});

describe('rate limit on POST /pay', () => {
  let limited: Harness;
  beforeAll(async () => {
    limited = await startHarness({ rateLimit: { limit: LIMIT, windowMs: 60 * 60 * 1000 } });
  });
  afterAll(async () => {
    await limited.close();
  });

  it(`lets ${String(LIMIT)} POSTs through in the window and answers 429 to the next, before any other check`, async () => {
    const { order, payUrl } = await limited.kit.createPayment(paymentInput(uniqueOrderNo('limit')));
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const form = payForm(page, 'card');
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i++) {
      // Invalid card numbers: each attempt counts although none reaches the gateway.
      statuses.push((await browser.submit(page, form, cardFields('4242424242424241'))).status);
    }
    expect(statuses).toEqual(Array.from({ length: LIMIT }, () => 400));
    const res = await browser.submit(page, form, cardFields(CARD.approve));
    expect(res.status).toBe(429);
    expect(res.html).toContain('Too many payment attempts');
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(res.headers.get('ratelimit')).toMatch(/^limit=\d+, remaining=0, reset=\d+$/);
    expect(res.headers.get('ratelimit-policy')).toMatch(/^\d+;w=\d+$/);
    // A forged POST without CSRF is limited too (the limit runs first).
    expect((await new Browser().submit(page, form, cardFields(CARD.approve))).status).toBe(429);
    // Pages still load: only POST /pay is limited.
    expect((await browser.get(payUrl)).status).toBe(200);
    expect(limited.sandbox.ledger.transactions().filter((t) => t.orderNo === order.orderNo)).toHaveLength(0);
    expect((await limited.kit.store.get(order.id))?.data.submittedAt).toBeUndefined();
  });
});
