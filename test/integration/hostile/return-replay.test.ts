/**
 * The gateway signs only merchant_id, account_id, order_no, currency, amount, transaction_id and
 * order_status, and the shopper's browser carries those fields, signed, back from 3-D Secure. So a
 * shopper can post them to /notify with result_info, payment_status and webhooks_type of their own:
 * a notification that verifies. These journeys hold what such a post can never do: take money the
 * signed fields say was not taken, put the shopper's text on the order, the result page or the
 * admin's decline reasons, relabel a paid order, or grow the order's log without bound. Beside
 * them, signed notifications the engine did not apply (late, unconfirmed, mismatched) never become
 * the reason shown for a decline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusalReason } from '../../../server/index.js';
import { Browser, CARD, cardFields, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness } from '../checkout/journeys-harness.js';
import { challenged, declinedPayment, post } from './signed-return.js';

describe('the signed return fields posted to /notify with other unsigned fields (default options)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('the text on the order, the result page and the reason is the kit\'s for the code, never the body\'s', async () => {
    const orderNo = uniqueOrderNo('RR-TEXT');
    const { browser, result, returned } = await challenged(h, orderNo, 'fail');
    expect(returned.order_status).toBe('0');
    expect((await browser.get(result.url)).html).toMatch(/3-D Secure authentication failed/);
    expect(await post(h, { ...returned, webhooks_type: 'payment', result_info: '0201:Card blocked <b>call +1 555 0100</b> now' })).toBe(200);
    expect(await post(h, { ...returned, webhooks_type: 'payment', result_info: '0051:Call +1 555 0100' })).toBe(200);
    const order = await h.orderOf(orderNo);
    expect(order.data).toMatchObject({ resultCode: '0201', resultText: '3-D Secure authentication failed' });
    expect(await refusalReason(h.kit.store, order)).toBe('3-D Secure authentication failed');
    const again = await browser.get(result.url);
    expect(again.html).not.toMatch(/555 0100/);
  });

  it('200 posts with distinct unsigned fields add at most ten events to the order\'s log, and change nothing', async () => {
    const orderNo = uniqueOrderNo('RR-GROW');
    const { returned } = await challenged(h, orderNo, 'fail');
    const order = await h.orderOf(orderNo);
    const before = (await h.kit.store.listEvents(order.id)).length;
    // Ten are asked about and recorded; then the order's quiet run is full and a post within 2 s of
    // the last query reuses its answer, which never dismisses a claim: 503 (retried, not recorded).
    for (let i = 0; i < 200; i++) {
      const status = await post(h, { ...returned, webhooks_type: 'payment', result_info: `0201:x${String(i)}` });
      if (i < 10) expect(status).toBe(200);
      else expect([200, 503]).toContain(status);
    }
    const after = await h.orderOf(orderNo);
    expect((await h.kit.store.listEvents(order.id)).length - before).toBeLessThanOrEqual(10);
    expect(after).toMatchObject({ state: 'declined', version: order.version, capturedAmount: 0, data: { resultCode: '0201' } });
  });

  it("a paid order's result code stays when its return fields are posted as a refusal (the query says paid)", async () => {
    const orderNo = uniqueOrderNo('RR-PAID');
    const { returned } = await challenged(h, orderNo, 'pass');
    const paid = await h.orderOf(orderNo);
    expect(paid.state).toBe('paid');
    await post(h, { ...returned, webhooks_type: 'payment', payment_status: '5000', result_info: '0051:Attacker text' });
    const after = await h.orderOf(orderNo);
    expect(after.state).toBe('paid');
    expect(after.capturedAmount).toBe(paid.capturedAmount);
    expect({ code: after.data.resultCode, text: after.data.resultText }).toEqual({ code: paid.data.resultCode, text: paid.data.resultText });
  });

  it('a signed refusal the query contradicts leaves a paid order\'s result code and text', async () => {
    const orderNo = uniqueOrderNo('RR-LATE-REFUSAL');
    const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
    const browser = new Browser();
    const page = await browser.get(payUrl);
    await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
    await h.sandbox.notifier.flush();
    const paid = await h.orderOf(orderNo);
    await h.control(`/transactions/${paid.transactionId ?? ''}/notify`, { order_status: '0', payment_status: '5000', result_info: '0051:Insufficient funds' });
    await h.sandbox.notifier.flush();
    const after = await h.orderOf(orderNo);
    expect(after).toMatchObject({ state: 'paid', capturedAmount: paid.capturedAmount, data: { resultCode: paid.data.resultCode, resultText: paid.data.resultText } });
  });
});

describe('signed notifications the engine did not apply never become the reason for a decline', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const cases: [string, Record<string, string>][] = [
    ['a late "authentication required" (0200)', { order_status: '-3', payment_status: '1100', result_info: '0200:3-D Secure authentication required' }],
    ['an approval the query does not confirm', { order_status: '1', payment_status: '3000', result_info: '0000:Success' }],
    ['a notification for another amount (a mismatch)', { amount: '1.00', result_info: '0096:System malfunction' }],
  ];
  for (const [name, fields] of cases) {
    it(name, async () => {
      const orderNo = uniqueOrderNo('RR-NOT-APPLIED');
      const { browser, result } = await declinedPayment(h, orderNo);
      expect(result.html).toMatch(/Do not honor/);
      const order = await h.orderOf(orderNo);
      await h.control(`/transactions/${order.transactionId ?? ''}/notify`, fields);
      await h.sandbox.notifier.flush();
      const after = await h.orderOf(orderNo);
      expect(after.state).toBe('declined');
      expect(await refusalReason(h.kit.store, after)).toBe('Do not honor');
      const again = await browser.get(result.url);
      expect(again.html).toMatch(/Do not honor/);
      expect(again.html).not.toMatch(/authentication required|Success|System malfunction/);
    });
  }
});

describe('the signed return fields posted with other unsigned fields (confirmNotifications: false)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ confirmNotifications: false });
  });
  afterAll(async () => {
    await h.close();
  });

  it('a declined payment is not made paid by adding payment_status=3000 (order_status 0 is signed)', async () => {
    const orderNo = uniqueOrderNo('RR-NOCONFIRM');
    const { returned } = await challenged(h, orderNo, 'fail');
    expect(returned.order_status).toBe('0');
    await post(h, { ...returned, webhooks_type: 'payment', payment_status: '3000', result_info: '0000:Success' });
    await post(h, { ...returned, webhooks_type: 'chargeback', payment_status: '7000' });
    const order = await h.orderOf(orderNo);
    expect(order).toMatchObject({ state: 'declined', capturedAmount: 0, refundedAmount: 0 });
    expect(h.hookCount('onPaid', orderNo)).toBe(0);
  });
});
