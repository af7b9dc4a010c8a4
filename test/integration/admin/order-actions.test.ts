import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderEvent } from '../../../server/orders/types.js';
import { CARD_REVIEW, StaffSession, startHarness, type AdminHarness } from './harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const adminActions = (events: OrderEvent[]): OrderEvent[] => events.filter((e) => e.type === 'admin_action');

function flashOf(location: string): string {
  return decodeURIComponent(location);
}

describe('order page actions', () => {
  it('shows the order with amounts from minor units, the masked card and only the actions its state allows', async () => {
    const order = await h.createAuthorised({ amount: 12345 });
    const page = await new StaffSession(h.admin).get(`/orders/${order.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('123.45 USD');
    expect(page.text).toContain('424242******4242');
    expect(page.text).not.toContain('4242424242424242');
    expect(page.text).toContain('/capture"');
    expect(page.text).toContain('/cancel"');
    expect(page.text).not.toContain('/refund"');
    expect(page.text).not.toContain('Approve review');
  });

  it('captures an authorised order: paid, captured at the gateway, admin_action with the actor', async () => {
    const order = await h.createAuthorised({ amount: 2500 });
    const staff = new StaffSession(h.admin, 'carol');
    await staff.get(`/orders/${order.id}`);
    const res = await staff.post(`/orders/${order.id}/capture`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(new RegExp(`^/admin/orders/${order.id}\\?flash=`));
    const stored = await h.kit.store.get(order.id);
    expect(stored).toMatchObject({ state: 'paid', capturedAmount: 2500 });
    const tx = h.sandbox.ledger.transaction(order.orderNo);
    expect(tx?.capturedAmount).toBe(2500);
    expect(tx?.paymentStatus).toBe('3000');
    const events = await h.kit.store.listEvents(order.id);
    expect(adminActions(events)).toEqual([expect.objectContaining({ source: 'admin', actor: 'carol', data: expect.objectContaining({ action: 'capture', result: 'ok' }) })]);
    expect(events.find((e) => e.toState === 'paid')).toMatchObject({ source: 'admin', actor: 'carol' });
    const after = await staff.follow(res);
    expect(after.text).toContain('Capture accepted by the gateway. The order is now paid.');
    expect(after.text).toContain('/refund"');
    expect(after.text).not.toContain('/capture"');
  });

  it('refunds partially then fully: refundedAmount, states and the ledger refunds -01 and -02', async () => {
    const order = await h.createAuthorised({ amount: 5000 });
    const staff = new StaffSession(h.admin);
    await staff.get(`/orders/${order.id}`);
    expect((await staff.post(`/orders/${order.id}/capture`)).status).toBe(303);

    await staff.get(`/orders/${order.id}`);
    const partial = await staff.post(`/orders/${order.id}/refund`, { refund_amount: '12.50', refund_reason: 'damaged' });
    expect(partial.status).toBe(303);
    expect(await h.kit.store.get(order.id)).toMatchObject({ state: 'partially_refunded', refundedAmount: 1250 });

    const page = await staff.get(`/orders/${order.id}`);
    expect(page.text).toContain('value="37.50"');
    const full = await staff.post(`/orders/${order.id}/refund`, { refund_amount: '37.50' });
    expect(full.status).toBe(303);
    expect(await h.kit.store.get(order.id)).toMatchObject({ state: 'refunded', refundedAmount: 5000 });

    const tx = h.sandbox.ledger.transaction(order.orderNo);
    const refunds = h.sandbox.ledger.refunds().filter((r) => r.orderNo === order.orderNo);
    expect(refunds.map((r) => [r.refundReferenceId, r.refundAmount])).toEqual([
      [`${tx?.transactionId}-01`, 1250],
      [`${tx?.transactionId}-02`, 3750],
    ]);
    const actions = adminActions(await h.kit.store.listEvents(order.id)).filter((e) => e.data.action === 'refund');
    expect(actions.map((e) => e.data.refundReferenceId)).toEqual([`${tx?.transactionId}-01`, `${tx?.transactionId}-02`]);
    const done = await staff.get(`/orders/${order.id}`);
    expect(done.text).not.toContain('/refund"');
  });

  it('refuses an over-refund with 400 naming refund_amount, without calling the gateway', async () => {
    const order = await h.createAuthorised({ amount: 3000 });
    const staff = new StaffSession(h.admin);
    await staff.get(`/orders/${order.id}`);
    await staff.post(`/orders/${order.id}/capture`);
    await staff.get(`/orders/${order.id}`);
    await staff.post(`/orders/${order.id}/refund`, { refund_amount: '10.00' });
    const refundsBefore = h.count('/v1/refund');
    const eventsBefore = (await h.kit.store.listEvents(order.id)).length;

    for (const amount of ['20.01', '0', '-1', '5.001', 'abc', '']) {
      await staff.get(`/orders/${order.id}`);
      const res = await staff.post(`/orders/${order.id}/refund`, { refund_amount: amount });
      expect(res.status, amount).toBe(400);
      expect(res.text).toContain('refund_amount');
      // The refusal stays on the order page, in words, with a way back to the order.
      expect(res.text).toContain(`<h1>Order ${order.orderNo}</h1>`);
      expect(res.text).toContain('Refund amount: ');
      expect(res.text).toContain(`Back to order ${order.orderNo}`);
    }
    expect(h.count('/v1/refund')).toBe(refundsBefore);
    expect((await h.kit.store.listEvents(order.id)).length).toBe(eventsBefore);
    expect(await h.kit.store.get(order.id)).toMatchObject({ state: 'partially_refunded', refundedAmount: 1000 });
  });

  it('refuses an action the state does not allow (409) without calling the gateway', async () => {
    const order = await h.createAuthorised();
    const staff = new StaffSession(h.admin);
    await staff.get(`/orders/${order.id}`);
    const refunds = h.count('/v1/refund');
    const res = await staff.post(`/orders/${order.id}/refund`, { refund_amount: '1.00' });
    expect(res.status).toBe(409);
    expect(h.count('/v1/refund')).toBe(refunds);
  });

  it('cancels (voids) an authorised order', async () => {
    const order = await h.createAuthorised();
    const staff = new StaffSession(h.admin, 'dave');
    await staff.get(`/orders/${order.id}`);
    const res = await staff.post(`/orders/${order.id}/cancel`);
    expect(res.status).toBe(303);
    expect((await h.kit.store.get(order.id))?.state).toBe('cancelled');
    expect(h.sandbox.ledger.transaction(order.orderNo)?.paymentStatus).toBe('6000');
    expect(adminActions(await h.kit.store.listEvents(order.id))[0]).toMatchObject({ actor: 'dave', data: expect.objectContaining({ action: 'cancel', result: 'ok' }) });
  });

  it('approves a held payment in review (state from the gateway by query) and rejects another', async () => {
    const approveMe = await h.createAuthorised({ card: CARD_REVIEW });
    const rejectMe = await h.createAuthorised({ card: CARD_REVIEW });
    expect(approveMe.state).toBe('in_review');
    const staff = new StaffSession(h.admin, 'erin');
    const page = await staff.get(`/orders/${approveMe.id}`);
    expect(page.text).toContain('Approve review');
    expect(page.text).not.toContain('/capture"');

    const approved = await staff.post(`/orders/${approveMe.id}/review`, { decision: 'approve' });
    expect(approved.status).toBe(303);
    // Manual capture: an approved review leaves the payment authorised, as the query reports.
    expect((await h.kit.store.get(approveMe.id))?.state).toBe('authorized');
    expect(h.sandbox.ledger.transaction(approveMe.orderNo)?.paymentStatus).toBe('2000');

    await staff.get(`/orders/${rejectMe.id}`);
    const rejected = await staff.post(`/orders/${rejectMe.id}/review`, { decision: 'reject' });
    expect(rejected.status).toBe(303);
    expect((await h.kit.store.get(rejectMe.id))?.state).toBe('cancelled');
    expect(h.sandbox.ledger.transaction(rejectMe.orderNo)?.paymentStatus).toBe('6000');
    const actions = adminActions(await h.kit.store.listEvents(rejectMe.id));
    expect(actions[0]).toMatchObject({ actor: 'erin', data: expect.objectContaining({ action: 'review_reject', result: 'ok' }) });

    await staff.get(`/orders/${rejectMe.id}`);
    expect((await staff.post(`/orders/${rejectMe.id}/review`, { decision: 'maybe' })).status).toBe(400);
  });

  it('query sync applies what the gateway says, recorded with the actor', async () => {
    const order = await h.createAuthorised({ amount: 700 });
    // The gateway captured it, but the shop never heard (no notify URL): the order lags behind.
    const [result] = await h.kit.client.batch.capture([{ transaction_id: order.transactionId ?? '', order_no: order.orderNo, currency: 'USD', amount: 700 }]);
    expect(result?.ok).toBe(true);
    expect((await h.kit.store.get(order.id))?.state).toBe('authorized');
    const staff = new StaffSession(h.admin, 'frank');
    await staff.get(`/orders/${order.id}`);
    const res = await staff.post(`/orders/${order.id}/sync`);
    expect(res.status).toBe(303);
    expect(flashOf(String(res.headers.location))).toMatch(/flash=/);
    expect((await h.kit.store.get(order.id))?.state).toBe('paid');
    const events = await h.kit.store.listEvents(order.id);
    expect(events.find((e) => e.toState === 'paid')).toMatchObject({ source: 'admin', actor: 'frank' });
    expect(adminActions(events).at(-1)).toMatchObject({ actor: 'frank', data: expect.objectContaining({ action: 'sync', state: 'paid' }) });
    const after = await staff.follow(res);
    expect(after.text).toContain('Synced with the gateway: the order is now paid.');
  });

  it('a lost answer says the outcome is unknown, offers query sync and never re-sends', async () => {
    const order = await h.createAuthorised({ amount: 900 });
    h.sandbox.faults.add({ kind: 'reset', operation: 'capture', orderNo: order.orderNo, times: 1 });
    const staff = new StaffSession(h.admin);
    await staff.get(`/orders/${order.id}`);
    const captures = h.count('/v1/capture');
    const res = await staff.post(`/orders/${order.id}/capture`);
    expect(res.status).toBe(303);
    expect(h.count('/v1/capture')).toBe(captures + 1);
    const page = await staff.follow(res);
    expect(page.text).toContain('the outcome is unknown. Nothing was re-sent');
    expect(page.text).toContain('Query sync');
    const action = adminActions(await h.kit.store.listEvents(order.id))[0];
    expect(action?.data).toMatchObject({ action: 'capture', result: 'unknown' });
    h.sandbox.faults.clear();
  });

  it('shows notifications received and rejected in the events', async () => {
    const order = await h.createAuthorised();
    await h.kit.engine.record(order.id, { type: 'notification_rejected', source: 'notify', actor: 'gateway', data: { reason: 'bad signature' } });
    const page = await new StaffSession(h.admin).get(`/orders/${order.id}`);
    expect(page.text).toContain('notification rejected');
    expect(page.text).toContain('bad signature');
  });
});
