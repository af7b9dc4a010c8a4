import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Order, OrderState } from '../../../server/orders/types.js';
import { StaffSession, startHarness, type AdminHarness } from './harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const DAY = 86_400_000;
const utcDay = (daysAgo: number): string => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
const at = (daysAgo: number, hour: number): Date => new Date(`${utcDay(daysAgo)}T${String(hour).padStart(2, '0')}:00:00.000Z`);

async function seed(state: OrderState, daysAgo: number, attention: string | null = null, hour = 12): Promise<Order> {
  const order = await h.kit.store.create({
    id: randomUUID(), orderNo: h.orderNo(`S-${state}`), amount: 1999, currency: 'EUR', state, createdAt: at(daysAgo, hour),
  });
  if (attention === null) return order;
  const flagged = await h.kit.store.transition(order.id, order.version, { attention });
  if (!flagged.ok) throw new Error('flagging failed');
  return flagged.order;
}

describe('orders list', () => {
  it('filters by state, created date range and attention, newest first', async () => {
    const paidOld = await seed('paid', 30);
    const paidNewer = await seed('paid', 29, null, 10);
    const declined = await seed('declined', 29);
    const flagged = await seed('paid', 29, 'Payment captured after the order was cancelled', 15);
    const outside = await seed('paid', 40);
    const staff = new StaffSession(h.admin);

    const byState = await staff.get(`/?state=paid&from=${utcDay(30)}&to=${utcDay(29)}`);
    expect(byState.status).toBe(200);
    const listed = [...byState.text.matchAll(/name="orders" value="([^"]+)"/g)].map((m) => m[1]);
    expect(listed).toEqual([flagged.orderNo, paidNewer.orderNo, paidOld.orderNo]);
    expect(listed).not.toContain(declined.orderNo);
    expect(listed).not.toContain(outside.orderNo);

    const attention = await staff.get(`/?attention=1&from=${utcDay(30)}&to=${utcDay(29)}`);
    const flaggedOnly = [...attention.text.matchAll(/name="orders" value="([^"]+)"/g)].map((m) => m[1]);
    expect(flaggedOnly).toEqual([flagged.orderNo]);
    expect(attention.text).toContain('19.99 EUR');

    const bad = await staff.get('/?state=bogus');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('state');
  });

  it('pages 50 at a time', async () => {
    for (let i = 0; i < 51; i++) await seed('failed', 60);
    const staff = new StaffSession(h.admin);
    const first = await staff.get(`/?state=failed&from=${utcDay(60)}&to=${utcDay(60)}`);
    expect((first.text.match(/name="orders" value=/g) ?? []).length).toBe(50);
    expect(first.text).toContain('page=2');
    const second = await staff.get(`/?state=failed&from=${utcDay(60)}&to=${utcDay(60)}&page=2`);
    expect((second.text.match(/name="orders" value=/g) ?? []).length).toBe(1);
  });

  it('charts payments and acceptance rate per day for the last 14 days', async () => {
    // Two days nothing else in this file touches.
    for (const state of ['paid', 'declined', 'pending', 'created'] as const) await seed(state, 2);
    for (const state of ['authorized', 'refunded'] as const) await seed(state, 4);
    await seed('paid', 20);
    const page = await new StaffSession(h.admin).get('/');
    expect(page.text).toMatch(new RegExp(`data-day="${utcDay(2)}" data-payments="3" data-accepted="1" data-decided="2"`));
    expect(page.text).toMatch(new RegExp(`data-day="${utcDay(4)}" data-payments="2" data-accepted="2" data-decided="2"`));
    expect(page.text).toMatch(new RegExp(`data-day="${utcDay(3)}" data-payments="0"`));
    expect(page.text).toContain(`data-day="${utcDay(2)}" data-rate="50"`);
    expect(page.text).toContain(`data-day="${utcDay(4)}" data-rate="100"`);
    expect(page.text).not.toContain(`data-day="${utcDay(20)}"`);
    expect((page.text.match(/<rect class="bar"/g) ?? []).length).toBe(14);
  });
});

describe('refund search', () => {
  it('finds refunds by order number and by refund reference', async () => {
    const order = await h.createAuthorised({ amount: 4000 });
    const staff = new StaffSession(h.admin);
    await staff.get(`/orders/${order.id}`);
    await staff.post(`/orders/${order.id}/capture`);
    await staff.get(`/orders/${order.id}`);
    await staff.post(`/orders/${order.id}/refund`, { refund_amount: '12.50', refund_reason: 'late' });
    const searches = h.count('/v1/retrievalRefund');

    const byOrder = await staff.get(`/refunds?orders=${encodeURIComponent(order.orderNo)}`);
    expect(byOrder.status).toBe(200);
    expect(byOrder.text).toContain(`${order.transactionId}-01`);
    expect(byOrder.text).toContain('12.50 USD');
    expect(byOrder.text).toContain('40.00 USD');
    expect(byOrder.text).toContain('late');
    expect(h.count('/v1/retrievalRefund')).toBeGreaterThan(searches);

    const byReference = await staff.get(`/refunds?references=${encodeURIComponent(`${order.transactionId}-01`)}`);
    expect((byReference.text.match(new RegExp(`<td>${order.transactionId}-01</td>`, 'g')) ?? []).length).toBe(1);

    const none = await staff.get(`/refunds?orders=NOPE-${randomUUID().slice(0, 8)}`);
    expect(none.text).toContain('No refunds found');
    const bad = await staff.get('/refunds?orders=%3Cscript%3E');
    expect(bad.status).toBe(400);
  });
});

describe('payouts', () => {
  const form = (requestId: string): Record<string, string> => ({
    request_id: requestId,
    payment_amount: '250.00', payment_currency: 'EUR', payment_method: 'SWIFT', fee_paid_by: 'PAYER',
    swift_charge_option: 'SHARED', fund_source: 'DepositAccount', reason: 'Supplier invoice', reference: 'INV-2041',
    'beneficiary.entity_type': 'COMPANY', 'beneficiary.company_name': 'Tea Leaves Ltd',
    'beneficiary.address.street_address': '1 Leaf Street', 'beneficiary.address.city': 'Leeds',
    'beneficiary.address.postcode': 'LS1 1AA', 'beneficiary.address.country_code': 'gb',
    'beneficiary.bank_details.account_name': 'Tea Leaves Ltd', 'beneficiary.bank_details.iban': 'GB33 BUKB 2020 1555 5555 55',
    'beneficiary.bank_details.swift_code': 'BUKBGB22', 'beneficiary.bank_details.bank_country_code': 'GB',
    'payer.entity_type': 'COMPANY', 'payer.company_name': 'Demo Shop', 'payer.address.country_code': 'DE',
  });

  it('builds the payout request tree, shows the result, lists it, and a double submit sends once', async () => {
    const staff = new StaffSession(h.admin, 'kim');
    const page = await staff.get('/payouts');
    const requestId = /name="request_id" value="([0-9a-f-]{36})"/.exec(page.text)?.[1] ?? '';
    expect(requestId).not.toBe('');
    const sent = h.count('/v1/payout');
    const from = h.calls.length;

    const first = await staff.post('/payouts', form(requestId));
    expect(first.status).toBe(303);
    expect(first.headers.location).toMatch(new RegExp(`/admin/payouts/${requestId}\\?flash=`));
    const second = await staff.post('/payouts', form(requestId));
    expect(second.status).toBe(303);
    expect(h.count('/v1/payout')).toBe(sent + 1);

    const wire = JSON.parse(h.calls.slice(from).find((c) => c.path === '/v1/payout')!.body) as Record<string, unknown>;
    expect(wire).toMatchObject({
      // Payout amounts travel as digits, whole units by default (payoutAmountUnit 'major').
      request_id: requestId, payment_amount: '250', payment_currency: 'EUR', reason: 'Supplier invoice', reference: 'INV-2041',
      beneficiary: {
        entity_type: 'COMPANY', company_name: 'Tea Leaves Ltd',
        address: { street_address: '1 Leaf Street', city: 'Leeds', postcode: 'LS1 1AA', country_code: 'GB' },
        bank_details: { account_name: 'Tea Leaves Ltd', iban: 'GB33BUKB20201555555555', swift_code: 'BUKBGB22', bank_country_code: 'GB' },
      },
      payer: { entity_type: 'COMPANY', company_name: 'Demo Shop', address: { country_code: 'DE' } },
    });
    expect(h.sandbox.ledger.payouts().filter((p) => p.requestId === requestId)).toHaveLength(1);
    const stored = await h.adminStore.getPayout(requestId);
    expect(stored).toMatchObject({ status: 'completed', amount: 25000, currency: 'EUR', beneficiary: 'Tea Leaves Ltd', createdBy: 'kim', message: 'COMPLETED' });
    expect(stored?.transactionId).toBeTruthy();

    const result = await staff.follow(second);
    expect(result.text).toContain('already submitted; nothing was sent again');
    expect(result.text).toContain('250.00 EUR');
    const list = await staff.get('/payouts');
    expect(list.text).toContain(`data-request-id="${requestId}"`);
    expect(list.text).toContain('Tea Leaves Ltd');
    expect(list.text).not.toContain(`name="request_id" value="${requestId}"`);
  });

  it('refuses an invalid payout form with 400 naming the field, sending and saving nothing', async () => {
    const staff = new StaffSession(h.admin);
    const sent = h.count('/v1/payout');
    for (const [field, value] of [['payment_amount', '12.345'], ['beneficiary.address.country_code', 'GBR'], ['reason', '']] as const) {
      await staff.get('/payouts');
      const requestId = randomUUID();
      const res = await staff.post('/payouts', { ...form(requestId), [field]: value });
      expect(res.status, field).toBe(400);
      expect(res.text).toContain(field);
      expect(await h.adminStore.getPayout(requestId)).toBeNull();
    }
    expect(h.count('/v1/payout')).toBe(sent);
  });
});

describe('subscription cancel', () => {
  it('cancels at the gateway and records it on the order found by its recurring id', async () => {
    const order = await h.createAuthorised({ subscription: true });
    const recurringId = String(order.data.recurringId);
    expect(recurringId).toMatch(/^RC/);
    const staff = new StaffSession(h.admin, 'lee');
    await staff.get('/subscriptions/cancel');
    const res = await staff.post('/subscriptions/cancel', { recurring_id: recurringId, contract_name: 'Tea club' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Subscription cancelled');
    expect(res.text).toContain(order.orderNo);
    expect(h.sandbox.ledger.subscriptions().find((s) => s.recurringId === recurringId)?.status).toBe('cancelled');
    const event = (await h.kit.store.listEvents(order.id)).find((e) => e.data.action === 'subscription_cancel');
    expect(event).toMatchObject({ type: 'admin_action', actor: 'lee', data: expect.objectContaining({ recurringId, result: 'ok' }) });

    await staff.get('/subscriptions/cancel');
    const missing = await staff.post('/subscriptions/cancel', { recurring_id: '' });
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('recurring_id');
  });
});
