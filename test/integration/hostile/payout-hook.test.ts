/**
 * Hostile: the payout hook fails once (the shop's mailer is down). Order hooks go through the
 * outbox and are retried; a failing onPayoutChanged leaves the new status unstored and the
 * notification unacknowledged (503), so the gateway's resend calls the hook again: it is
 * delivered in the end.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Staff } from '../../reliability/support/refund-race.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { payoutWithLostAnswer } from './support.js';

let shop: Shop;
const delivered: string[] = [];
let failures = 0;
beforeAll(async () => {
  shop = await startShop({
    admin: true,
    timeoutMs: 1_500,
    notifyTimeScale: 0.00001,
    kit: {
      hooks: {
        onPayoutChanged: (payout) => {
          if (failures++ === 0) throw new Error('mailer down');
          delivered.push(payout.requestId);
        },
      },
    },
  });
});
afterAll(async () => {
  await shop.close();
});

describe('a payout hook that fails once', () => {
  it('is delivered in the end', async () => {
    const staff = new Staff(shop, 'payer');
    // The answer is lost: the notification settles the payout (and owes the hook).
    const requestId = await payoutWithLostAnswer(shop, staff, `HOOK-${randomUUID().slice(0, 8)}`);
    // The gateway's resend calls the hook again: polled, as the resend's time is the gateway's.
    await vi.waitFor(() => { expect(delivered).toEqual([requestId]); }, { timeout: 15_000, interval: 20 });
    // Once, not again: nothing left to deliver, and still the one call.
    await shop.sandbox.notifier.flush();
    expect(delivered).toEqual([requestId]);
    expect(failures).toBeGreaterThan(0);
  });
});
