/**
 * The pay route over real HTTP: it reads its form whatever body parser the shop mounted in
 * front of the kit, and every change it makes to the order after marking it submitted goes
 * through the reconcile engine (details and attention in the same compare-and-set as the
 * state, onAttention fired).
 */
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../../server/orders/types.js';
import {
  Browser, CARD, cardFields, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness,
} from './journeys-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => {
  h.setShopMiddleware(null);
  h.sandbox.faults.clear();
});
afterAll(async () => {
  await h.close();
});

async function stored(orderId: string): Promise<Order> {
  const order = await h.kit.store.get(orderId);
  if (!order) throw new Error('order vanished');
  return order;
}

/** A new order whose gateway notifications are held back, so only the pay route moves it. */
async function quietOrder(prefix: string): Promise<{ order: Order; payUrl: string }> {
  const created = await h.kit.createPayment(paymentInput(uniqueOrderNo(prefix)));
  h.sandbox.faults.add({ kind: 'dropNotification', orderNo: created.order.orderNo });
  return created;
}

describe('POST /pay reads the form whatever the shop mounted', () => {
  const parsers: [string, express.RequestHandler][] = [
    ['express.text for every type', express.text({ type: '*/*' })],
    ['express.raw for every type', express.raw({ type: '*/*' })],
    ['express.raw', express.raw()],
    ['express.json', express.json()],
    ['express.urlencoded extended', express.urlencoded({ extended: true })],
  ];
  it.each(parsers)('%s: the CSRF check passes and the card is paid once', async (_name, parser) => {
    h.setShopMiddleware(parser);
    const { order, payUrl } = await quietOrder('parser');
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const res = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
    expect(res.trail[1]).toContain('/checkout/result/');
    expect(res.status).toBe(200);
    expect(await stored(order.id)).toMatchObject({ state: 'paid', method: 'card', maskedCard: '424242******4242' });
    expect(h.hookCount('onPaid', order.orderNo)).toBe(1);
    expect(h.sandbox.ledger.transactions().filter((t) => t.orderNo === order.orderNo)).toHaveLength(1);
  });

  it('a forged CSRF field is still refused behind express.text', async () => {
    h.setShopMiddleware(express.text({ type: '*/*' }));
    const { order, payUrl } = await quietOrder('parser-csrf');
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const res = await browser.submit(page, payForm(page, 'card'), { ...cardFields(CARD.approve), _csrf: `${'A'.repeat(22)}.${'B'.repeat(43)}` });
    expect(res.status).toBe(403);
    expect((await stored(order.id)).version).toBe(order.version);
  });

  it('a body over the limit gets a 413 page and changes nothing', async () => {
    const { order, payUrl } = await quietOrder('too-large');
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const res = await browser.submit(page, payForm(page, 'card'), { ...cardFields(CARD.approve), padding: 'x'.repeat(20 * 1024) });
    expect(res.status).toBe(413);
    expect(res.html).not.toContain(CARD.approve);
    expect((await stored(order.id)).version).toBe(order.version);
  });
});

describe('the pay route changes the order through the engine alone', () => {
  it("a decline: state, resultCode and resultText in one compare-and-set", async () => {
    const { order, payUrl } = await quietOrder('decline');
    const browser = new Browser();
    const page = await browser.get(payUrl);
    await browser.submit(page, payForm(page, 'card'), cardFields(CARD.decline));
    const after = await stored(order.id);
    // created (0) → pending (1, submitted with its method) → declined (2): no separate write for the method or the details.
    expect(after).toMatchObject({ state: 'declined', version: 2, method: 'card' });
    expect(after.data).toMatchObject({ resultCode: expect.any(String), resultText: expect.any(String) });
    const events = await h.kit.store.listEvents(order.id);
    expect(events.map((e) => [e.type, e.toState])).toEqual([['transition', 'pending'], ['transition', 'declined']]);
    expect(h.hookCount('onFailed', order.orderNo)).toBe(1);
  });

  it('an untrusted answer: pending since the submission, flagged in one write, onAttention fired once', async () => {
    const { order, payUrl } = await quietOrder('untrusted');
    h.sandbox.faults.add({ kind: 'malformed', operation: 'authorise', orderNo: order.orderNo, times: 1 });
    const browser = new Browser();
    const page = await browser.get(payUrl);
    const res = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
    expect(res.trail[1]).toContain('/checkout/result/');
    const after = await stored(order.id);
    expect(after).toMatchObject({ state: 'pending', version: 2, method: 'card', attention: expect.stringContaining('could not be trusted') });
    expect(typeof after.data.attentionAt).toBe('string');
    const events = await h.kit.store.listEvents(order.id);
    expect(events.map((e) => [e.type, e.toState])).toEqual([['transition', 'pending'], ['attention', null]]);
    expect(events[1]!.data.error).toEqual(expect.any(String));
    expect(h.hookCount('onAttention', order.orderNo)).toBe(1);
  });
});
