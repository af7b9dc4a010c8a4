/**
 * Notifications over real HTTP from the in-process sandbox that the old dedupe swallowed: one
 * ahead of the gateway's query, one with another amount on a paid order, a stale mismatch, a
 * dispute, and a payout's result.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayClient } from '../../../server/gateway/client.js';
import { notificationDedupeKey } from '../../../server/gateway/operations/notifications.js';
import { signMessage } from '../../../server/gateway/signing.js';
import { createCheckoutKit } from '../../../server/kit.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import {
  ACCOUNT_ID, Browser, CARD, cardFields, MERCHANT_ID, onlyForm, payForm, paymentInput, SIGN_KEY, startHarness, TOKEN_SECRET, uniqueOrderNo,
  type Harness, type Page,
} from './journeys-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const deliveriesOf = (orderNo: string) => h.sandbox.ledger.notifications().filter((n) => n.orderNo === orderNo);

/** A card payment stopped on the 3-D Secure page: the order is requires_action. */
async function atChallenge(orderNo: string): Promise<{ browser: Browser; challenge: Page }> {
  const browser = new Browser();
  const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
  const page = await browser.get(payUrl);
  const toIssuer = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.challenge));
  const challenge = await browser.submit(toIssuer, onlyForm(toIssuer));
  expect((await h.orderOf(orderNo)).state).toBe('requires_action');
  return { browser, challenge };
}

async function paidOrder(prefix: string): Promise<string> {
  const orderNo = uniqueOrderNo(prefix);
  const browser = new Browser();
  const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
  const page = await browser.get(payUrl);
  await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
  await h.sandbox.notifier.flush();
  expect((await h.orderOf(orderNo)).state).toBe('paid');
  return orderNo;
}

const PAID = { order_status: '1', payment_status: '3000', result_info: '0000:Success' };

async function untilAttempted(orderNo: string, origin: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (deliveriesOf(orderNo).some((n) => n.origin === origin && n.attempts.length > 0)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the crafted notification was never attempted');
}

describe('a notification ahead of the gateway query is not marked seen', () => {
  it('paid while the query still says requires_action → 503; the same fact after the 3-D Secure pass settles the order', async () => {
    const orderNo = uniqueOrderNo('NF-AHEAD');
    const { browser, challenge } = await atChallenge(orderNo);
    const tx = (await h.orderOf(orderNo)).transactionId!;
    await h.control(`/transactions/${tx}/notify`, PAID);
    await untilAttempted(orderNo, 'crafted');
    const early = deliveriesOf(orderNo).find((n) => n.origin === 'crafted')!;
    expect(early.attempts[0]?.httpStatus).toBe(503);
    let order = await h.orderOf(orderNo);
    expect(order.state).toBe('requires_action');
    const key = notificationDedupeKey(early.fields);
    const events = await h.kit.store.listEvents(order.id);
    expect(events.some((e) => e.dedupeKey === key)).toBe(false);
    expect(events.filter((e) => e.type === 'unconfirmed' && e.dedupeKey === `unconfirmed:${key}`)).toHaveLength(1);

    // The shopper passes; the sandbox notifies the very same fact (same dedupe key) for real.
    await browser.submit(challenge, onlyForm(challenge), {}, { name: 'decision', value: 'pass' });
    await h.sandbox.notifier.flush();
    order = await h.orderOf(orderNo);
    expect(order.state).toBe('paid');
    const real = deliveriesOf(orderNo).find((n) => n.origin === 'state-change' && n.fields.payment_status === '3000')!;
    expect(notificationDedupeKey(real.fields)).toBe(key);
    expect(real.status).toBe('delivered');
    const after = await h.kit.store.listEvents(order.id);
    expect(after.filter((e) => e.dedupeKey === key).map((e) => [e.type, e.toState])).toEqual([['transition', 'paid']]);
    expect(h.hookCount('onPaid', orderNo)).toBe(1);
  });
});

describe('amount and currency mismatches are flagged on any state', () => {
  it('another amount on a paid order → 200, a mismatch recorded once, flagged as money', async () => {
    const orderNo = await paidOrder('NF-AMOUNT');
    const tx = (await h.orderOf(orderNo)).transactionId!;
    await h.control(`/transactions/${tx}/notify`, { ...PAID, amount: '0.01' });
    await h.sandbox.notifier.flush();
    const crafted = deliveriesOf(orderNo).filter((n) => n.origin === 'crafted');
    expect(crafted.map((n) => n.attempts.map((a) => a.httpStatus))).toEqual([[200]]);
    await h.control(`/notifications/${crafted[0]!.id}/resend`);
    await h.sandbox.notifier.flush();
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('paid');
    expect(order.attention).toContain('(0.01 USD for order');
    expect(order.attention).toContain('the order is 25.00 USD');
    const mismatches = (await h.kit.store.listEvents(order.id)).filter((e) => e.type === 'mismatch');
    expect(mismatches).toHaveLength(1);
    expect(mismatches[0]?.dedupeKey).toBe(notificationDedupeKey(crafted[0]!.fields));
    expect(h.hookCount('onAttention', orderNo)).toBe(1);
  });

  it('a stale mismatch reason clears when the gateway confirms the payment', async () => {
    const orderNo = uniqueOrderNo('NF-STALE');
    const { challenge, browser } = await atChallenge(orderNo);
    const tx = (await h.orderOf(orderNo)).transactionId!;
    await h.control(`/transactions/${tx}/notify`, { ...PAID, amount: '0.01' });
    await h.sandbox.notifier.flush();
    expect((await h.orderOf(orderNo)).attention).toMatch(/reported a different amount/);
    await browser.submit(challenge, onlyForm(challenge), {}, { name: 'decision', value: 'pass' });
    await h.sandbox.notifier.flush();
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('paid');
    expect(order.attention).toBeNull();
  });
});

describe('disputes and payouts', () => {
  it('a dispute notification moves the order to chargeback; onChargeback and onDispute fire once', async () => {
    const orderNo = await paidOrder('NF-DISPUTE');
    const tx = (await h.orderOf(orderNo)).transactionId!;
    await h.control(`/transactions/${tx}/dispute`, { reason: 'Goods not received' });
    await h.sandbox.notifier.flush();
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('chargeback');
    expect(order.data.chargebackReason).toBe('Goods not received');
    expect(order.attention).toMatch(/Chargeback received/);
    expect(deliveriesOf(orderNo).filter((n) => n.webhooksType === 'dispute').map((n) => n.status)).toEqual(['delivered']);
    expect(h.hookCount('onChargeback', orderNo)).toBe(1);
    expect(h.hookCount('onDispute', orderNo)).toBe(1);
  });

  it('a payout result notification updates the payout in the admin store and calls onPayoutChanged once', async () => {
    const requestId = randomUUID();
    const at = new Date();
    await h.kit.adminStore.savePayout({
      requestId, createdBy: 'staff', status: 'submitting', amount: 100, currency: 'EUR', beneficiary: 'B1', reference: 'R1',
      transactionId: null, message: null, request: {}, response: null, createdAt: at, updatedAt: at,
    });
    const result = await h.kit.client.payouts.create({
      request_id: requestId, beneficiary_id: 'B1', payment_amount: 100, payment_currency: 'EUR', reference: 'R1', notify_url: h.kit.context.urls.notify(),
    });
    // As when the answer could not be read: the record is `unknown` until the notification says more.
    await h.kit.adminStore.updatePayout(requestId, { status: 'unknown', transactionId: result.transactionId });
    await h.sandbox.notifier.flush();
    const payout = await h.kit.adminStore.getPayout(requestId);
    expect(payout?.status).toBe('completed');
    const delivery = h.sandbox.ledger.notifications().find((n) => n.webhooksType === 'payout' && n.transactionId === result.transactionId);
    expect(delivery?.status).toBe('delivered');
    expect(delivery?.attempts.every((a) => a.httpStatus !== 404)).toBe(true);
    expect(h.hookCount('onPayoutChanged', requestId)).toBe(1);

    // Two copies at once of a notification that changes the payout: one change, one hook call.
    await h.kit.adminStore.updatePayout(requestId, { status: 'unknown' });
    await Promise.all([h.control(`/notifications/${delivery!.id}/resend`), h.control(`/notifications/${delivery!.id}/resend`)]);
    await h.sandbox.notifier.flush();
    expect((await h.kit.adminStore.getPayout(requestId))?.status).toBe('completed');
    expect(h.hookCount('onPayoutChanged', requestId)).toBe(2);
  });
});

describe('a shop that passes its own client', () => {
  it('gets notifications verified with that client\'s keys, not the gateway option\'s', async () => {
    const client = createGatewayClient({ baseUrl: h.gateway.baseUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: SIGN_KEY });
    const optionKey = `option-key-${randomUUID()}`;
    const kit = createCheckoutKit({
      gateway: { baseUrl: h.gateway.baseUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: optionKey },
      publicUrl: 'http://127.0.0.1:1/checkout', tokenSecret: TOKEN_SECRET, client, store: createMemoryStore(), sweeper: { enabled: false },
    });
    const app = express();
    app.use('/checkout', kit.router);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/checkout/notify`;
      const fields = { merchant_id: MERCHANT_ID, account_id: ACCOUNT_ID, order_no: 'OWN-CLIENT-1', transaction_id: 'TX-OWN', amount: '1.00', currency: 'EUR', order_status: '1', webhooks_type: 'payment' };
      const post = (key: string) => fetch(url, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...fields, encryption_data: signMessage('notification', fields, key) }).toString(),
      });
      expect((await post(SIGN_KEY)).status).toBe(200);
      expect((await post(optionKey)).status).toBe(401);
      expect((await kit.adminStore.listNotifications({ limit: 10 })).map((n) => n.orderNo)).toEqual(['OWN-CLIENT-1']);
    } finally {
      server.close();
      await kit.close();
      client.close();
    }
  });
});
