/**
 * The result page's reason for a decline is the one for the order's current state, never the
 * text of an earlier step (the authorise answer "3-D Secure authentication required" before
 * the challenge failed), and so is the code kept on the order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declineReasons } from '../../../server/admin/dashboard.js';
import { failedChallenge, startHarness, uniqueOrderNo, type Harness } from './journeys-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('result page reason', () => {
  it('after a failed 3-D Secure challenge it names the failure, not the challenge request', async () => {
    const orderNo = uniqueOrderNo('R-3DS-FAIL');
    const { browser, result } = await failedChallenge(h, orderNo);
    const order = await h.kit.store.getByOrderNo(orderNo);
    expect(order?.state).toBe('declined');
    // The refusal's code replaced the authorise answer's ("0200: authentication required") on the
    // order, so the admin's decline reasons name the failure too…
    expect(order?.data).toMatchObject({ resultCode: '0201', resultText: '3-D Secure authentication failed' });
    expect(declineReasons([order!]).map((r) => r.code)).toEqual(['0201']);
    // …and the page shows the reason the order is declined.
    const again = await browser.get(result.url);
    expect(again.html).toMatch(/3-D Secure authentication failed/);
    expect(again.html).not.toMatch(/authentication required/);
  });
});
