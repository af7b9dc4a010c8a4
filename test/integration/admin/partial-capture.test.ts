/**
 * Partial capture over real HTTP with the sandbox (manual capture): the order page's capture form
 * shows the authorised and captured amounts and takes an amount; a refused amount stays on the
 * page and sends nothing; the rest of the authorisation is released; refunds are bounded by what
 * was captured; and the shop's code captures through `kit.orders.capture`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StaffSession, startHarness, type AdminHarness } from './harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('partial capture from the order page', () => {
  it('the form shows authorised and captured amounts and offers the whole authorisation by default', async () => {
    const order = await h.createAuthorised({ amount: 2500 });
    const page = await new StaffSession(h.admin).get(`/orders/${order.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/Authorised 25\.00 USD · already captured 0\.00 USD/);
    expect(page.text).toContain('Capture amount (USD, up to 25.00 USD)');
    expect(page.text).toMatch(/id="capture_amount"[^>]*value="25.00"/);
  });

  it('captures 15.00 of 25.00: paid with 15.00 captured here and at the gateway, 10.00 released, refunds bounded by 15.00', async () => {
    const order = await h.createAuthorised({ amount: 2500 });
    const staff = new StaffSession(h.admin, 'carol');
    await staff.get(`/orders/${order.id}`);
    const res = await staff.post(`/orders/${order.id}/capture`, { capture_amount: '15.00' });
    expect(res.status).toBe(303);
    expect(await h.kit.store.get(order.id)).toMatchObject({ state: 'paid', capturedAmount: 1500, refundedAmount: 0 });
    expect(h.sandbox.ledger.transaction(order.orderNo)).toMatchObject({ capturedAmount: 1500, paymentStatus: '3000' });
    const sent = h.calls.filter((c) => c.path === '/v1/capture').map((c) => JSON.parse(c.body) as { capture_orders: { order_no: string; amount: string }[] });
    expect(sent.flatMap((b) => b.capture_orders).filter((o) => o.order_no === order.orderNo).map((o) => o.amount)).toEqual(['15.00']);
    const events = await h.kit.store.listEvents(order.id);
    expect(events.find((e) => e.toState === 'paid')).toMatchObject({ source: 'admin', actor: 'carol', data: expect.objectContaining({ capturedAmount: 1500 }) });

    const after = await staff.follow(res);
    expect(after.text).toContain('Capture accepted by the gateway: 15.00 USD captured, the other 10.00 USD of the authorisation released. The order is now paid.');
    expect(after.text).toMatch(/Released<\/dt><dd class="released">10\.00 USD of the authorisation, not captured/);
    expect(after.text).toContain('Refund amount (USD, up to 15.00 USD)');
    expect(after.text).toContain('value="15.00"');
    expect(after.text).not.toContain('/capture"');

    // More than was captured is refused before anything is sent; all of it ends the order refunded.
    const refundsBefore = h.count('/v1/refund');
    const tooMuch = await staff.post(`/orders/${order.id}/refund`, { refund_amount: '15.01' });
    expect(tooMuch.status).toBe(400);
    expect(h.count('/v1/refund')).toBe(refundsBefore);
    await staff.get(`/orders/${order.id}`);
    expect((await staff.post(`/orders/${order.id}/refund`, { refund_amount: '15.00' })).status).toBe(303);
    expect(await h.kit.store.get(order.id)).toMatchObject({ state: 'refunded', capturedAmount: 1500, refundedAmount: 1500 });
    expect(h.sandbox.ledger.transaction(order.orderNo)).toMatchObject({ refundedAmount: 1500 });
  });

  it('a capture without an amount (the form of before, a script) captures the whole authorisation', async () => {
    const order = await h.createAuthorised({ amount: 1800 });
    const staff = new StaffSession(h.admin);
    await staff.get(`/orders/${order.id}`);
    expect((await staff.post(`/orders/${order.id}/capture`)).status).toBe(303);
    expect(await h.kit.store.get(order.id)).toMatchObject({ state: 'paid', capturedAmount: 1800 });
    const page = await staff.get(`/orders/${order.id}`);
    expect(page.text).not.toContain('class="released"');
  });

  for (const [typed, message] of [
    ['0.00', 'must be more than zero'],
    ['25.01', '25.01 USD is more than the 25.00 USD authorised and not yet captured'],
    ['1.234', 'capture_amount'],
    ['ten', 'capture_amount'],
  ] as const) {
    it(`refuses "${typed}" on the order page, labelled "Capture amount", and sends nothing`, async () => {
      const order = await h.createAuthorised({ amount: 2500 });
      const staff = new StaffSession(h.admin);
      await staff.get(`/orders/${order.id}`);
      const before = h.count('/v1/capture');
      const res = await staff.post(`/orders/${order.id}/capture`, { capture_amount: typed });
      expect(res.status).toBe(400);
      expect(res.text).toContain('Nothing was sent: check the form');
      expect(res.text).toMatch(/<a href="#capture_amount">Capture amount: [^<]+<\/a>/);
      expect(res.text).toContain(message);
      // What staff typed stays in the field, marked invalid.
      expect(res.text).toMatch(new RegExp(`id="capture_amount"[^>]*value="${typed.replace('.', '\\.')}"[^>]*aria-invalid="true"`));
      expect(h.count('/v1/capture')).toBe(before);
      const stored = await h.kit.store.get(order.id);
      expect(stored).toMatchObject({ state: 'authorized', capturedAmount: 0, version: order.version });
      expect(stored?.data.requestedCapture).toBeUndefined();
    });
  }

  it('a capture the gateway refuses leaves the order authorised and forgets the amount requested', async () => {
    const order = await h.createAuthorised({ amount: 2000 });
    // Captured behind the kit's back: the gateway refuses a second capture.
    const [outside] = await h.kit.client.batch.capture([{ transaction_id: order.transactionId ?? '', order_no: order.orderNo, currency: 'USD', amount: 2000 }]);
    expect(outside?.ok).toBe(true);
    const staff = new StaffSession(h.admin);
    await staff.get(`/orders/${order.id}`);
    const res = await staff.post(`/orders/${order.id}/capture`, { capture_amount: '5.00' });
    expect(res.status).toBe(303);
    expect((await staff.follow(res)).text).toContain('Capture refused by the gateway: Transaction is already captured.');
    const stored = await h.kit.store.get(order.id);
    expect(stored).toMatchObject({ state: 'authorized', capturedAmount: 0 });
    expect(stored?.data.requestedCapture).toBeNull();
    // Query sync then learns the capture the gateway made: the whole amount, not the 5.00 refused.
    await staff.get(`/orders/${order.id}`);
    expect((await staff.post(`/orders/${order.id}/sync`)).status).toBe(303);
    expect(await h.kit.store.get(order.id)).toMatchObject({ state: 'paid', capturedAmount: 2000 });
  });
});

describe('kit.orders.capture from the shop\'s code', () => {
  it('captures an amount: the order is paid with it, the gateway captured it', async () => {
    const order = await h.createAuthorised({ amount: 4000 });
    const result = await h.kit.orders.capture(order.id, { amount: 2500, actor: 'warehouse' });
    expect(result).toMatchObject({ status: 'captured', amount: 2500, message: null, error: null, order: { state: 'paid', capturedAmount: 2500 } });
    expect(h.sandbox.ledger.transaction(order.orderNo)?.capturedAmount).toBe(2500);
    const events = await h.kit.store.listEvents(order.id);
    expect(events.find((e) => e.toState === 'paid')).toMatchObject({ source: 'api', actor: 'warehouse' });
    expect(events.filter((e) => e.type === 'api_action')).toEqual([
      expect.objectContaining({ source: 'api', actor: 'warehouse', data: expect.objectContaining({ action: 'capture', amount: 2500, result: 'ok' }) }),
    ]);
  });

  it('captures everything without an amount', async () => {
    const order = await h.createAuthorised({ amount: 1234 });
    expect(await h.kit.orders.capture(order.id)).toMatchObject({ status: 'captured', amount: 1234, order: { capturedAmount: 1234 } });
  });

  it('refuses bad amounts and orders that are not authorised before sending anything', async () => {
    const order = await h.createAuthorised({ amount: 1000 });
    const before = h.count('/v1/capture');
    await expect(h.kit.orders.capture(order.id, { amount: 1001 })).rejects.toMatchObject({ code: 'ERR_VALIDATION', field: 'amount' });
    await expect(h.kit.orders.capture(order.id, { amount: 0 })).rejects.toMatchObject({ code: 'ERR_VALIDATION', field: 'amount' });
    await expect(h.kit.orders.capture(order.id, { amount: 10.5 })).rejects.toMatchObject({ code: 'ERR_VALIDATION', field: 'amount' });
    await expect(h.kit.orders.capture('no-such-order')).rejects.toMatchObject({ code: 'ERR_ORDER_NOT_FOUND' });
    expect(h.count('/v1/capture')).toBe(before);
    await h.kit.orders.capture(order.id, { amount: 400 });
    await expect(h.kit.orders.capture(order.id, { amount: 100 })).rejects.toMatchObject({ code: 'ERR_ORDER_STATE' });
    expect(h.count('/v1/capture')).toBe(before + 1);
  });
});
