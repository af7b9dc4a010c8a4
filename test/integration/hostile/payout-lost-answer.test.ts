/**
 * Hostile: a payout whose answer is lost (the gateway made it, the reply never came back) while
 * its result notification reached the kit first. The notification is the gateway's word that the
 * payout completed; the lost answer must not overwrite it with "unknown".
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Staff } from '../../reliability/support/refund-race.js';
import { createAdminRouter, createMemoryAdminStore } from '../../../server/admin/index.js';
import { ADMIN_CSRF_SECRET, capturingLogger, startShop, type Shop } from '../../reliability/support/shop.js';

let shop: Shop;
beforeAll(async () => {
  shop = await startShop({ admin: true, timeoutMs: 1_500, notifyTimeScale: 0.00001 });
});
afterAll(async () => {
  await shop.close();
});

describe('a payout notified before its lost answer', () => {
  it('stays completed, as the gateway says', async () => {
    const staff = new Staff(shop, 'payer');
    const page = await staff.get('/payouts');
    const requestId = /name="request_id" value="([0-9a-f-]{36})"/.exec(page.text)?.[1] ?? '';
    shop.sandbox.faults.add({ kind: 'timeout', operation: 'payout', times: 1 });
    const res = await staff.post('/payouts', {
      request_id: requestId, payment_amount: '10.00', payment_currency: 'EUR', payment_method: 'SWIFT', fee_paid_by: 'PAYER',
      swift_charge_option: 'SHARED', fund_source: 'DepositAccount', reason: 'Refund of a deposit', reference: 'DEP-1',
      'beneficiary.entity_type': 'COMPANY', 'beneficiary.company_name': 'Tea Leaves Ltd', 'beneficiary.address.country_code': 'GB',
      'beneficiary.bank_details.account_name': 'Tea Leaves Ltd', 'beneficiary.bank_details.bank_country_code': 'GB',
      'payer.entity_type': 'COMPANY', 'payer.address.country_code': 'DE',
    });
    expect(res.status).toBe(303);
    await shop.sandbox.notifier.flush();
    await sleep(50);
    const delivered = shop.sandbox.ledger.notifications().filter((n) => n.fields.request_id === requestId || n.fields.webhooks_type === 'payout');
    expect(delivered.length).toBeGreaterThan(0);
    expect(shop.sandbox.ledger.payouts().find((p) => p.requestId === requestId)?.status).toBe('COMPLETED');
    const shown = await staff.get(`/payouts/${requestId}`);
    expect(/data-status="([a-z]+)"/.exec(shown.text)?.[1]).toBe('completed');
  });
});

describe('an admin given another admin store than the kit\'s', () => {
  it('warns that payout notifications will not reach its payouts', () => {
    const lines: string[] = [];
    createAdminRouter({
      kit: shop.kit, authorize: () => null, csrfSecret: ADMIN_CSRF_SECRET, adminStore: createMemoryAdminStore(), logger: capturingLogger(lines),
    });
    expect(lines.some((l) => l.includes('"level":"warn"') && l.includes('payout notifications'))).toBe(true);
    const quiet: string[] = [];
    createAdminRouter({ kit: shop.kit, authorize: () => null, csrfSecret: ADMIN_CSRF_SECRET, adminStore: shop.kit.adminStore, logger: capturingLogger(quiet) });
    expect(quiet.filter((l) => l.includes('payout notifications'))).toEqual([]);
  });
});
