/**
 * The dashboard page over real HTTP: today's and the last 7 days' payments by method and
 * outcome, conversion per method, decline reasons ranked, notification results from the kit's
 * metrics, the oldest pending payments, and the stacked SVG chart — from orders in the store.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order, OrderState, PaymentMethodKind } from '../../../server/orders/types.js';
import { StaffSession, startHarness, type AdminHarness } from './harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const DAY = 86_400_000;
const today = (): string => new Date().toISOString().slice(0, 10);
/** Today at 00:00:10 UTC, or `days` days before. */
const dayStart = (days: number): Date => new Date(Date.parse(`${today()}T00:00:10.000Z`) - days * DAY);

async function seed(state: OrderState, method: PaymentMethodKind | null, daysAgo: number, resultCode?: string): Promise<Order> {
  return h.kit.store.create({
    id: randomUUID(), orderNo: h.orderNo(`D-${state}`), amount: 1000, currency: 'EUR', state, method,
    createdAt: dayStart(daysAgo), data: resultCode === undefined ? {} : { resultCode, resultText: resultCode === '0051' ? 'Insufficient funds' : 'Do not honor' },
  });
}

/** The text content of the first element matching `attr` inside the row of `method` in the `n`th period table. */
function cell(html: string, period: number, method: string, attr: string): string | undefined {
  const table = html.split('<table class="dash-table">')[period + 1] ?? '';
  const row = new RegExp(`<tr[^>]*data-method="${method}"[^>]*>(.*?)</tr>`, 's').exec(table)?.[1] ?? '';
  return new RegExp(`${attr}>([^<]*)<`).exec(row)?.[1];
}

describe('GET /admin/dashboard', () => {
  it('counts payments by method and outcome, conversion per method, declines ranked, the oldest pending, the chart', async () => {
    await seed('paid', 'card', 0);
    await seed('refunded', 'card', 0);
    await seed('declined', 'card', 0, '0051');
    await seed('failed', 'apm', 0);
    const pending = await seed('requires_action', 'hosted', 0);
    await seed('created', null, 0); // never sent: not a started payment
    await seed('declined', 'card', 3, '0051');
    await seed('declined', 'card', 3, '0005');
    await seed('paid', 'card', 3);
    await seed('paid', 'card', 10); // outside the week
    h.kit.metrics.notification('applied');
    h.kit.metrics.notification('refused_signature');
    h.kit.metrics.notification('refused_signature');

    const res = await new StaffSession(h.admin).get('/dashboard');
    expect(res.status).toBe(200);
    const html = res.text;

    // Today: card 3 started (2 paid, 1 declined), apm 1 failed, hosted 1 open.
    expect(cell(html, 0, 'card', 'data-started="3"')).toBe('3');
    expect(cell(html, 0, 'card', 'data-outcome="paid"')).toBe('2');
    expect(cell(html, 0, 'card', 'data-outcome="declined"')).toBe('1');
    expect(cell(html, 0, 'card', 'data-conversion="67"')).toBe('67%');
    expect(cell(html, 0, 'apm', 'data-outcome="failed"')).toBe('1');
    expect(cell(html, 0, 'apm', 'data-conversion="0"')).toBe('0%');
    expect(cell(html, 0, 'hosted', 'data-outcome="open"')).toBe('1');
    expect(cell(html, 0, 'all', 'data-started="5"')).toBe('5');
    // Last 7 days: card 6 started, 3 paid.
    expect(cell(html, 1, 'card', 'data-started="6"')).toBe('6');
    expect(cell(html, 1, 'card', 'data-conversion="50"')).toBe('50%');
    expect(cell(html, 1, 'all', 'data-started="8"')).toBe('8');

    // Declines ranked: 0051 twice, then 0005 once.
    const codes = [...html.matchAll(/<li data-code="([^"]+)" data-family="([^"]+)"/g)].map((m) => `${m[1]}/${m[2]}`);
    expect(codes).toEqual(['0051/insufficient_funds', '0005/do_not_honor']);

    // Notifications from the kit's metrics, most first.
    const results = [...html.matchAll(/<li[^>]*data-result="([^"]+)"[^>]*><span class="count">(\d+)</g)].map((m) => `${m[1]}=${m[2]}`);
    expect(results).toEqual(['refused_signature=2', 'applied=1']);

    // The oldest pending payments link to their order.
    expect(html).toContain(`/admin/orders/${pending.id}`);

    // The chart: 8 payments with a method over the week, today's bar stacked 3 paid / 1 declined / 1 failed / 1 open.
    expect(html).toMatch(/<svg class="chart-svg" viewBox="0 0 360 190"[^>]*data-total="8"/);
    const todayBar = new RegExp(`<g class="stack" data-day="${today()}" data-total="5">(.*?)</g>`, 's').exec(html)?.[1] ?? '';
    const parts = [...todayBar.matchAll(/class="seg seg-(\w+)"[^>]*data-count="(\d+)"/g)].map((m) => `${m[1]}=${m[2]}`);
    expect(parts).toEqual(['paid=2', 'declined=1', 'failed=1', 'open=1']);
    // No style attribute: the page stays within the strict CSP.
    expect(html).not.toMatch(/\sstyle=/);
  });

  it('is behind the sign-in like every admin page', async () => {
    const res = await fetch(`${h.admin.baseUrl}/admin/dashboard`);
    expect(res.status).toBe(401);
  });
});
