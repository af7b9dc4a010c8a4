/**
 * The sandbox's subscription schedule over real HTTP: the clock advanced through deductions,
 * each a transaction of its own with its notification and query element; a failed deduction;
 * the end at billing_cycle, contract_end and cancel; the control API and the persisted clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyMessage } from '../../../server/gateway/signing.js';
import { createSandbox } from '../../../server/sandbox/index.js';
import { directRequest, postJsonAsForm, readRespon, SIGN_KEY, startReceiver, startSandbox, type Harness, type Receiver } from './support.js';

let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  h = await startSandbox();
  receiver = await startReceiver();
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

async function subscribe(subscription: Record<string, unknown>, amount = '25.00'): Promise<{ orderNo: string; recurringId: string; transactionId: string }> {
  const request = directRequest({ notify_url: receiver.url, amount, item_total: amount, items: `Tea#,#TEA-1#,#${amount}#,#1`, subscription });
  const respon = readRespon((await postJsonAsForm(h.baseUrl, '/v1/authorise', request)).text);
  expect(respon.order_status).toBe('1');
  return { orderNo: String(request.order_no), recurringId: respon.recurring_id ?? '', transactionId: respon.transaction_id ?? '' };
}

const notified = (orderNo: string) => receiver.received.filter((r) => r.fields.order_no === orderNo);

describe('subscription schedule', () => {
  it('charges a deduction per period on the advanced clock, fails one on request, notifies each, and stops at cancel', async () => {
    const sub = await subscribe({ contract_name: 'Tea club', contract_amount: '9.50', interval: 'month', interval_count: '1', promotion_cycle: 1 });
    const first = h.sandbox.clock.advance({ months: 1, days: 1 });
    expect(first.deductions.filter((t) => t.recurringId === sub.recurringId)).toHaveLength(1);
    const [d1] = first.deductions.filter((t) => t.recurringId === sub.recurringId);
    // The promotion cycle charges the first payment's amount; then contract_amount.
    expect(d1).toMatchObject({ orderNo: sub.orderNo, amount: 2500, orderStatus: '1', paymentStatus: '3000', deductionOf: sub.transactionId });
    expect(d1?.transactionId).not.toBe(sub.transactionId);

    h.sandbox.subscriptions.failNext(sub.recurringId);
    const second = h.sandbox.clock.advance({ months: 1 }).deductions.filter((t) => t.recurringId === sub.recurringId);
    expect(second.map((t) => [t.amount, t.orderStatus, t.resultInfo])).toEqual([[950, '0', '0051:Insufficient funds']]);
    const third = h.sandbox.clock.advance({ months: 1 }).deductions.filter((t) => t.recurringId === sub.recurringId);
    expect(third.map((t) => [t.amount, t.orderStatus])).toEqual([[950, '1']]);

    await h.sandbox.notifier.flush();
    const deductions = notified(sub.orderNo).filter((r) => r.fields.transaction_id !== sub.transactionId);
    expect(deductions).toHaveLength(3);
    for (const r of deductions) {
      expect(r.fields).toMatchObject({ webhooks_type: 'payment', recurring_id: sub.recurringId, contract_name: 'Tea club', recurring_deduction_period: '1 month' });
      expect(r.fields.recurring_deduction_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(verifyMessage('notification', r.fields, r.fields.encryption_data, [SIGN_KEY])).toBe(true);
    }
    // Sent at once over parallel connections, they may arrive in any order: read by transaction.
    const charged = [d1, ...second, ...third].map((t) => t?.transactionId ?? '');
    const statusOf = new Map(deductions.map((r) => [r.fields.transaction_id, r.fields.order_status]));
    expect(charged.map((id) => statusOf.get(id))).toEqual(['1', '0', '1']);

    // The query by order_no lists the first payment and every deduction, each with its own date.
    const query = await h.client.queries.transactions({ orders: [sub.orderNo] });
    expect(query.orders.map((o) => o.transactionId)).toEqual([sub.transactionId, ...charged]);
    expect(new Set(query.orders.map((o) => o.subscription?.recurringId))).toEqual(new Set([sub.recurringId]));
    expect(query.orders[1]?.subscription?.recurringDeductionTime).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    const cancelled = await h.client.subscriptions.cancel({ recurring_id: sub.recurringId });
    expect(cancelled.ok).toBe(true);
    expect(h.sandbox.clock.advance({ months: 3 }).deductions.filter((t) => t.recurringId === sub.recurringId)).toEqual([]);
    const stored = h.sandbox.ledger.subscriptions().find((s) => s.recurringId === sub.recurringId);
    expect(stored).toMatchObject({ status: 'cancelled', deductions: 3 });
  });

  it('ends after billing_cycle deductions', async () => {
    const sub = await subscribe({ contract_name: 'Weekly', contract_amount: '5.00', interval: 'week', interval_count: '1', billing_cycle: 2 });
    const charged = h.sandbox.clock.advance({ days: 30 }).deductions.filter((t) => t.recurringId === sub.recurringId);
    expect(charged).toHaveLength(2);
    expect(h.sandbox.ledger.subscriptions().find((s) => s.recurringId === sub.recurringId)).toMatchObject({ status: 'ended', deductions: 2 });
    const query = await h.client.queries.transactions({ orders: [sub.orderNo] });
    expect(query.orders[0]?.subscription?.recurringStatus).toBe('0');
  });

  it('charges nothing after contract_end', async () => {
    const end = new Date(h.sandbox.clock.now().getTime() + 2.5 * 86_400_000).toISOString().slice(0, 10);
    const sub = await subscribe({ contract_name: 'Daily', contract_amount: '1.00', interval: 'day', interval_count: '1', contract_end: end });
    const charged = h.sandbox.clock.advance({ days: 10 }).deductions.filter((t) => t.recurringId === sub.recurringId);
    expect(charged.length).toBeGreaterThanOrEqual(1);
    expect(charged.length).toBeLessThanOrEqual(2);
    expect(charged.every((t) => Date.parse(t.deductionAt ?? '') <= Date.parse(`${end}T00:00:00Z`))).toBe(true);
    expect(h.sandbox.ledger.subscriptions().find((s) => s.recurringId === sub.recurringId)?.status).toBe('ended');
  });

  it('the control API advances the clock and fails the next deduction; bad input changes nothing', async () => {
    const sub = await subscribe({ contract_name: 'Daily', contract_amount: '2.00', interval: 'day', interval_count: '1' });
    const before = h.sandbox.clock.now().getTime();
    const bad = await fetch(`${h.baseUrl}/_sandbox/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ days: -1 }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { source: string }).source).toBe('days');
    expect(h.sandbox.clock.now().getTime() - before).toBeLessThan(60_000);

    const fail = await fetch(`${h.baseUrl}/_sandbox/subscriptions/${sub.recurringId}/fail-next`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ result_info: '0005:Do not honor' }) });
    expect(fail.status).toBe(200);
    const missing = await fetch(`${h.baseUrl}/_sandbox/subscriptions/RCNOPE/fail-next`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(missing.status).toBe(404);

    const advanced = await fetch(`${h.baseUrl}/_sandbox/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ days: 1 }) });
    const body = (await advanced.json()) as { now: string; deductions: { recurringId: string; resultInfo: string }[] };
    expect(body.deductions.filter((t) => t.recurringId === sub.recurringId).map((t) => t.resultInfo)).toEqual(['0005:Do not honor']);
    const clock = (await (await fetch(`${h.baseUrl}/_sandbox/clock`)).json()) as { now: string; offsetMs: number };
    expect(clock.offsetMs).toBeGreaterThan(0);
    const page = await (await fetch(`${h.baseUrl}/`)).text();
    expect(page).toContain('Advance 1 month');
  });

  it('keeps the clock offset in the SQLite file across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-clock-'));
    try {
      const path = join(dir, 'ledger.db');
      const one = createSandbox({ sqlitePath: path, env: {} });
      one.clock.advance({ days: 40 });
      await one.close();
      const two = createSandbox({ sqlitePath: path, env: {} });
      expect(two.clock.now().getTime() - Date.now()).toBeGreaterThan(39 * 86_400_000);
      await two.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
