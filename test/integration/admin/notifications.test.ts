/**
 * The admin's side of notifications: payouts are sent with the checkout kit's notify URL, and
 * signed notifications nothing matched are listed for staff.
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

describe('notifications in the admin', () => {
  it('a payout is sent with the checkout kit\'s notify_url', async () => {
    const staff = new StaffSession(h.admin, 'kim');
    const page = await staff.get('/payouts');
    const requestId = /name="request_id" value="([0-9a-f-]{36})"/.exec(page.text)?.[1] ?? '';
    const from = h.calls.length;
    const res = await staff.post('/payouts', {
      request_id: requestId, payment_amount: '10.00', payment_currency: 'EUR', payment_method: 'SWIFT', fee_paid_by: 'PAYER',
      swift_charge_option: 'SHARED', fund_source: 'DepositAccount', reason: 'Refund of a deposit', reference: 'DEP-1',
      'beneficiary.entity_type': 'COMPANY', 'beneficiary.company_name': 'Tea Leaves Ltd', 'beneficiary.address.country_code': 'GB',
      'beneficiary.bank_details.account_name': 'Tea Leaves Ltd', 'beneficiary.bank_details.bank_country_code': 'GB',
      'payer.entity_type': 'COMPANY', 'payer.address.country_code': 'DE',
    });
    expect(res.status).toBe(303);
    const wire = JSON.parse(h.calls.slice(from).find((c) => c.path === '/v1/payout')!.body) as Record<string, unknown>;
    expect(wire.notify_url).toBe(h.kit.context.urls.notify());
    expect(h.sandbox.ledger.payouts().find((p) => p.requestId === requestId)?.notifyUrl).toBe(h.kit.context.urls.notify());
  });

  it('lists the unmatched notifications the kit kept, card-free fields included', async () => {
    await h.adminStore.recordNotification({
      dedupeKey: 'notify:abc', kind: 'unrecognised', type: 'settlement_report', orderNo: 'NO-SUCH-1', transactionId: 'TX-9',
      problem: 'unknown webhooks_type "settlement_report"', summary: { webhooks_type: 'settlement_report', amount: '1.00' }, receivedAt: new Date(),
    });
    const page = await new StaffSession(h.admin, 'kim').get('/notifications');
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-dedupe-key="notify:abc"');
    expect(page.text).toContain('NO-SUCH-1');
    expect(page.text).toContain('unknown webhooks_type &quot;settlement_report&quot;');
  });
});
