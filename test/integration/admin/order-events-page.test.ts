/**
 * The order page shows an order's event log a page at a time: an order with thousands of events
 * (a flood of notifications, years of staff actions) stays a small page, and the older events
 * are a link away. Refused actions re-render the same bounded page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS_PAGE } from '../../../server/admin/routes/orders.js';
import { StaffSession, startHarness, type AdminHarness } from './harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const seqsShown = (html: string): number[] => [...html.matchAll(/ · #(\d+)/g)].map((m) => Number(m[1]));

describe('order page: the event log a page at a time', () => {
  it('shows the newest page, links to older ones, and walks back to the first event', async () => {
    const order = await h.createAuthorised({ amount: 2500 });
    const before = (await h.kit.store.listEvents(order.id)).length;
    const total = before + EVENTS_PAGE + 20;
    for (let i = before + 1; i <= total; i++) {
      await h.kit.store.appendEvent(order.id, { type: 'ignored', source: 'notify', dedupeKey: `flood-${String(i)}`, data: { reason: 'already authorized' } });
    }
    const staff = new StaffSession(h.admin);
    const newest = await staff.get(`/orders/${order.id}`);
    expect(newest.status).toBe(200);
    const first = seqsShown(newest.text);
    expect(first).toHaveLength(EVENTS_PAGE);
    expect(first[0]).toBe(total);
    expect(first.at(-1)).toBe(total - EVENTS_PAGE + 1);
    expect(newest.text).toContain(`<ol class="events-list" reversed start="${String(total)}">`);
    const older = new RegExp(`href="([^"]*\\?events_before=${String(total - EVENTS_PAGE + 1)}#events-title)"`).exec(newest.text)?.[1];
    expect(older).toBeDefined();
    expect(newest.text).not.toContain('Newest events');

    const page2 = await staff.get(`/orders/${order.id}?events_before=${String(total - EVENTS_PAGE + 1)}`);
    expect(page2.status).toBe(200);
    const second = seqsShown(page2.text);
    expect(second).toEqual(Array.from({ length: total - EVENTS_PAGE }, (_, i) => total - EVENTS_PAGE - i));
    expect(page2.text).toContain('Newest events');
    expect(page2.text).not.toContain('events_before=');
  });

  it('a refused action re-renders the newest page only', async () => {
    const order = await h.createAuthorised({ amount: 2500 });
    for (let i = 1; i <= EVENTS_PAGE * 3; i++) {
      await h.kit.store.appendEvent(order.id, { type: 'ignored', source: 'notify', dedupeKey: `flood-${String(i)}`, data: { reason: 'already authorized' } });
    }
    const staff = new StaffSession(h.admin);
    await staff.get(`/orders/${order.id}`);
    const refused = await staff.post(`/orders/${order.id}/capture`, { capture_amount: 'lots' });
    expect(refused.status).toBe(400);
    expect(seqsShown(refused.text)).toHaveLength(EVENTS_PAGE);
  });

  it('refuses an events_before that is not a whole number of at least 2 with a 400 naming it, and an unknown order stays 404', async () => {
    const order = await h.createAuthorised({ amount: 2500 });
    const staff = new StaffSession(h.admin);
    for (const bad of ['0', '1', 'x', '2.5', '-3', '1e400']) {
      const res = await staff.get(`/orders/${order.id}?events_before=${bad}`);
      expect(res.status).toBe(400);
      expect(res.text).toContain('events_before');
    }
    expect((await staff.get('/orders/no-such-order?events_before=5')).status).toBe(404);
    // Left blank, it is the newest page.
    expect((await staff.get(`/orders/${order.id}?events_before=`)).status).toBe(200);
  });
});
