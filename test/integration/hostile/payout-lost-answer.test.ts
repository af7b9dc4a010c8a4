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
import { payoutWithLostAnswer } from './support.js';

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
    const requestId = await payoutWithLostAnswer(shop, staff, 'DEP-1');
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
