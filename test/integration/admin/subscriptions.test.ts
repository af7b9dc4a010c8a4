/**
 * The admin's subscriptions list over real HTTP with the sandbox: each subscription with its
 * deductions (recorded by the sweeper from the gateway's query), next deduction and status,
 * and the staff cancel from the list, which the list and the store then show as cancelled.
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

describe('subscriptions list', () => {
  it('shows deductions, next deduction and status; staff cancel from the list', async () => {
    const order = await h.createAuthorised({ subscription: true, amount: 1200 });
    const recurringId = String(order.data.recurringId);
    h.sandbox.clock.advance({ months: 1, days: 1 });
    h.sandbox.subscriptions.failNext(recurringId);
    h.sandbox.clock.advance({ months: 1 });
    await h.kit.sweeper.runOnce();
    const children = (await h.kit.store.listChildren?.(order.id)) ?? [];
    expect(children.map((c) => c.state)).toEqual(['paid', 'declined']);

    const staff = new StaffSession(h.admin, 'lee');
    const list = await staff.get('/subscriptions');
    expect(list.status).toBe(200);
    const section = list.text.slice(list.text.indexOf(`data-recurring-id="${recurringId}"`));
    expect(section).toContain(order.orderNo);
    expect(section).toContain('1 paid, 1 failed');
    expect(section).toMatch(/<dd class="subscription-status">active<\/dd>/);
    expect(section).toMatch(/<dt>Next deduction<\/dt><dd>\d{4}-\d{2}-\d{2}<\/dd>/);
    expect(section).toContain(children[0]?.transactionId ?? 'missing');

    const res = await staff.post('/subscriptions/cancel', { recurring_id: recurringId, contract_name: 'Tea club', order_no: order.orderNo });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Subscription cancelled');
    expect((await h.kit.store.get(order.id))?.data.subscriptionStatus).toBe('cancelled');
    const after = await staff.get('/subscriptions');
    const cancelled = after.text.slice(after.text.indexOf(`data-recurring-id="${recurringId}"`));
    expect(cancelled).toMatch(/<dd class="subscription-status">cancelled<\/dd>/);
    expect(cancelled.slice(0, cancelled.indexOf('</section>'))).not.toContain('Cancel subscription');
  });
});
