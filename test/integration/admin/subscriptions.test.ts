/**
 * The admin's subscriptions list over real HTTP with the sandbox: each subscription with its
 * deductions (recorded by the sweeper from the gateway's query), next deduction and status,
 * and the staff cancel from the list, which the list and the store then show as cancelled.
 */
import { randomUUID } from 'node:crypto';
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
    // Both deductions may be recorded in the same millisecond (by the sweeper and the notifications
    // racing it), so the store's creation order does not tell which came first: the deduction time does.
    const children = ((await h.kit.store.listChildren?.(order.id)) ?? []).sort((a, b) => String(a.data.deductionTime).localeCompare(String(b.data.deductionTime)));
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

  it('pages through older orders: a subscription behind 500 newer orders is on page 2; a bad page is a 400 naming it', async () => {
    const order = await h.createAuthorised({ subscription: true, amount: 1300 });
    const recurringId = String(order.data.recurringId);
    const later = Date.now() + 60_000;
    for (let i = 0; i < 500; i++) {
      await h.kit.store.create({ id: randomUUID(), orderNo: `NEWER-${randomUUID().slice(0, 8)}-${String(i)}`, amount: 100, currency: 'USD', createdAt: new Date(later + i) });
    }
    const staff = new StaffSession(h.admin, 'lee');
    const first = await staff.get('/subscriptions');
    expect(first.status).toBe(200);
    expect(first.text).not.toContain(`data-recurring-id="${recurringId}"`);
    expect(first.text).toContain('href="?page=2"');

    const second = await staff.get('/subscriptions?page=2');
    expect(second.status).toBe(200);
    expect(second.text).toContain(`data-recurring-id="${recurringId}"`);
    expect(second.text).toContain('href="?page=1"');

    const bad = await staff.get('/subscriptions?page=zero');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('page');
  });
});
