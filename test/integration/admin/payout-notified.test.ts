/**
 * Payouts staff send carry the kit's notify_url, and their status comes from the gateway's
 * notification: an answer that says neither completed nor failed (PENDING) leaves the payout
 * pending until its notification completes it; a notification confirming what the answer said
 * shows as such. Over real HTTP with the sandbox; its notifications are posted by the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Staff } from '../../reliability/support/refund-race.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { held, postNotify } from '../hostile/support.js';

/** The gateway's payout answer with its status replaced (the sandbox always answers COMPLETED). */
let answerStatus: string | null = null;
const rewritingFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (answerStatus === null || !url.endsWith('/v1/payout')) return res;
  const body = (await res.json()) as Record<string, unknown>;
  return new Response(JSON.stringify({ ...body, status: answerStatus }), { status: res.status, headers: res.headers });
};

const changes: { requestId: string; from: string; to: string }[] = [];

let shop: Shop;
beforeAll(async () => {
  shop = await startShop({
    admin: true, notifyTimeScale: 0.00001,
    kit: { fetch: rewritingFetch, hooks: { onPayoutChanged: (payout, info) => { changes.push({ requestId: payout.requestId, from: info.from, to: info.to }); } } },
  });
  shop.sandbox.faults.add({ kind: 'dropNotification' });
});
afterAll(async () => {
  await shop.close();
});

async function sendPayout(staff: Staff, reference: string): Promise<string> {
  const page = await staff.get('/payouts');
  const requestId = /name="request_id" value="([0-9a-f-]{36})"/.exec(page.text)?.[1] ?? '';
  const res = await staff.post('/payouts', {
    request_id: requestId, payment_amount: '10.00', payment_currency: 'EUR', payment_method: 'SWIFT', fee_paid_by: 'PAYER',
    swift_charge_option: 'SHARED', fund_source: 'DepositAccount', reason: 'Refund of a deposit', reference,
    'beneficiary.entity_type': 'COMPANY', 'beneficiary.company_name': 'Tea Leaves Ltd', 'beneficiary.address.country_code': 'GB',
    'beneficiary.bank_details.account_name': 'Tea Leaves Ltd', 'beneficiary.bank_details.bank_country_code': 'GB',
    'payer.entity_type': 'COMPANY', 'payer.address.country_code': 'DE',
  });
  expect(res.status).toBe(303);
  return requestId;
}

async function deliver(reference: string): Promise<void> {
  await shop.sandbox.notifier.flush();
  const fields = held(shop, reference);
  expect(fields.length).toBe(1);
  for (const f of fields) expect(await postNotify(shop, f)).toBe(200);
}

const statusShown = (html: string): string | undefined => /<dd data-status="([a-z]+)"/.exec(html)?.[1];
const payoutHooks = (requestId: string) => changes.filter((c) => c.requestId === requestId);

describe('payouts and their notifications', () => {
  it('an answer saying PENDING: pending until the notification completes it, once', async () => {
    answerStatus = 'PENDING';
    const staff = new Staff(shop, 'pat');
    const requestId = await sendPayout(staff, 'PAYOUT-PENDING-1');
    answerStatus = null;
    expect(shop.sandbox.ledger.payouts().find((p) => p.requestId === requestId)?.notifyUrl).toBe(shop.kit.context.urls.notify());
    expect(await shop.kit.adminStore.getPayout(requestId)).toMatchObject({ status: 'pending', message: 'PENDING' });
    const pending = await staff.get(`/payouts/${requestId}`);
    expect(statusShown(pending.text)).toBe('pending');
    expect(pending.text).toContain('its notification there will say when it completes or fails');

    await deliver('PAYOUT-PENDING-1');
    expect(await shop.kit.adminStore.getPayout(requestId)).toMatchObject({ status: 'completed', message: 'completed (notification)' });
    const list = await staff.get('/payouts');
    expect(list.text).toMatch(new RegExp(`data-request-id="${requestId}".*?<td data-status="completed">completed</td><td>completed \\(notification\\)</td>`, 's'));
    expect(payoutHooks(requestId).map((c) => `${c.from}>${c.to}`)).toEqual(['pending>completed']);
  });

  it('an answer saying COMPLETED: the notification confirms it, without a second change', async () => {
    const staff = new Staff(shop, 'pat');
    const requestId = await sendPayout(staff, 'PAYOUT-DONE-1');
    expect(await shop.kit.adminStore.getPayout(requestId)).toMatchObject({ status: 'completed', message: 'COMPLETED' });
    await deliver('PAYOUT-DONE-1');
    expect(await shop.kit.adminStore.getPayout(requestId)).toMatchObject({ status: 'completed', message: 'completed (notification)' });
    const page = await staff.get(`/payouts/${requestId}`);
    expect(statusShown(page.text)).toBe('completed');
    expect(page.text).toContain('completed (notification)');
    expect(payoutHooks(requestId)).toEqual([]);
  });
});
