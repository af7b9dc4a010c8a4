/**
 * Genuine flows next to the rules that keep a notification's unsigned details off the order:
 * subscriptions whose recurring details arrive with the first payment's notification, a masked
 * card known only from the notification (also after a return the query settled without one), the
 * direct authorise answer's card, a card that changes between attempts (reordered attempts:
 * orders/engine-masked-card.test.ts), a refund made before a chargeback found by the sweeper, and
 * a signed in-review body posted with a recurring_id.
 * (Refunds on orders refunded before the ledger: migrated-refunds.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, CARD, cardFields, onlyForm, parseForms, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness, type Page } from '../checkout/journeys-harness.js';
import { engineSetup, makeOrder } from '../orders/fixtures.js';
import { post } from './signed-return.js';

const PLAN = { contract_name: 'Tea club', contract_amount: 950, interval: 'month', interval_count: '1' } as const;
const REVIEW_CARD = '4000000000009235';

/** Pays on the gateway's hosted card page with `card`; returns the page that posts the shopper back (not submitted). */
async function payOnHostedPage(h: Harness, orderNo: string, card: string, subscription = false): Promise<{ browser: Browser; back: Page }> {
  const browser = new Browser();
  const { payUrl } = await h.kit.createPayment({ ...paymentInput(orderNo), ...(subscription ? { subscription: { ...PLAN } } : {}) });
  const page = await browser.get(payUrl);
  const autosubmit = await browser.submit(page, payForm(page, 'hosted'));
  let cardPage = await browser.submit(autosubmit, onlyForm(autosubmit));
  while (!parseForms(cardPage).some((f) => 'card' in f.fields)) cardPage = await browser.submit(cardPage, onlyForm(cardPage));
  const cardForm = parseForms(cardPage).find((f) => 'card' in f.fields);
  if (cardForm === undefined) throw new Error('no card form on the hosted page');
  return { browser, back: await browser.submit(cardPage, cardForm, cardFields(card)) };
}

describe('genuine flows through the notification (default options)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ sweeper: { enabled: false, stuckAfterMs: 1, expireAfterMs: 10 * 60 * 1000 } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('hosted-page subscription, shopper never returns: the notification (confirmed by query) makes it a subscription and its deduction is recorded', async () => {
    const orderNo = uniqueOrderNo('RV-SUB');
    await payOnHostedPage(h, orderNo, CARD.approve, true);
    await h.sandbox.notifier.flush();
    const parent = await h.orderOf(orderNo);
    const tx = h.sandbox.ledger.transactions().find((t) => t.orderNo === orderNo && t.deductionOf === undefined);
    expect(parent.state).toBe('paid');
    expect(parent.data.recurringId).toBe(tx?.recurringId);
    expect(parent.data.contractName).toBe('Tea club');
    expect(parent.data.deductionPeriod).toBeTruthy();
    h.sandbox.clock.advance({ months: 1, days: 1 });
    await h.sandbox.notifier.flush();
    const children = (await h.kit.store.listChildren?.(parent.id)) ?? [];
    expect(children.map((c) => [c.state, c.amount, c.data.recurringId])).toEqual([['paid', 950, parent.data.recurringId]]);
  });

  it('hosted page: the masked card, known only from the notification, reaches the order', async () => {
    const orderNo = uniqueOrderNo('RV-CARD');
    await payOnHostedPage(h, orderNo, CARD.approve);
    await h.sandbox.notifier.flush();
    const order = await h.orderOf(orderNo);
    expect(order.state).toBe('paid');
    const tx = h.sandbox.ledger.transactions().find((t) => t.orderNo === orderNo);
    expect(tx?.card).toBeTruthy();
    expect(order.maskedCard).toBe(tx?.card);
  });

  it('hosted page, the shopper returns before the notification: the query names no card, the payment\'s notification then gives it, once', async () => {
    const orderNo = uniqueOrderNo('RV-CARD-LATE');
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo });
    const { browser, back } = await payOnHostedPage(h, orderNo, CARD.approve);
    await browser.submit(back, onlyForm(back));
    const returned = await h.orderOf(orderNo);
    const tx = h.sandbox.ledger.transactions().find((t) => t.orderNo === orderNo);
    expect(returned).toMatchObject({ state: 'paid', transactionId: tx?.transactionId, maskedCard: null });
    await h.sandbox.notifier.flush();
    const note = h.sandbox.ledger.notifications().find((n) => n.orderNo === orderNo && n.status === 'dropped');
    expect(note?.fields.card).toBe(tx?.card);
    expect(await post(h, note?.fields ?? {})).toBe(200);
    const filled = await h.orderOf(orderNo);
    expect(filled).toMatchObject({ state: 'paid', transactionId: tx?.transactionId, maskedCard: tx?.card, version: returned.version + 1 });
    const newest = (await h.kit.store.listEvents(filled.id)).at(-1);
    expect(newest).toMatchObject({ type: 'details', toState: null, data: { transactionId: tx?.transactionId, maskedCard: tx?.card } });
    expect(h.hookCount('onPaid', orderNo)).toBe(1);
    // The card field is outside the signature: once the order has a card, another post keeps it.
    expect(await post(h, { ...note?.fields, card: '999999******0000' })).toBe(200);
    expect(await h.orderOf(orderNo)).toMatchObject({ maskedCard: tx?.card, version: filled.version });
  });

  it('card page without a challenge: the authorise answer\'s card is stored with its transaction; its notification posted again with another card keeps it', async () => {
    const orderNo = uniqueOrderNo('RV-CARD-DIRECT');
    const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
    const browser = new Browser();
    const page = await browser.get(payUrl);
    await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
    await h.sandbox.notifier.flush();
    const tx = h.sandbox.ledger.transactions().find((t) => t.orderNo === orderNo);
    const paid = await h.orderOf(orderNo);
    expect(tx?.card).toBeTruthy();
    expect(paid).toMatchObject({ state: 'paid', method: 'card', transactionId: tx?.transactionId, maskedCard: tx?.card });
    const toPaid = (await h.kit.store.listEvents(paid.id)).find((e) => e.toState === 'paid');
    expect(toPaid).toMatchObject({ source: 'pay', data: { transactionId: tx?.transactionId, maskedCard: tx?.card } });
    const note = h.sandbox.ledger.notifications().find((n) => n.orderNo === orderNo);
    expect(await post(h, { ...note?.fields, card: '999999******0000' })).toBe(200);
    expect(await h.orderOf(orderNo)).toMatchObject({ maskedCard: tx?.card, version: paid.version });
  });

  it('a refund made before a chargeback, all notifications lost: the sweeper records both, flags only the chargeback', async () => {
    const orderNo = uniqueOrderNo('RV-SWEEP-CB');
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo });
    await payOnHostedPage(h, orderNo, CARD.approve);
    await h.sandbox.notifier.flush();
    expect((await h.orderOf(orderNo)).state).toBe('pending');
    const tx = h.sandbox.ledger.transactions().find((t) => t.orderNo === orderNo);
    const [done] = await h.kit.client.batch.refund([{ transaction_id: tx?.transactionId ?? '', order_no: orderNo, currency: 'USD', amount: 2500, refund_amount: 500 }]);
    expect(done?.ok).toBe(true);
    await h.control(`/transactions/${tx?.transactionId ?? ''}/chargeback`, { reason: 'Fraudulent transaction' });
    await h.sandbox.notifier.flush();
    await h.kit.sweeper.runOnce();
    const after = await h.orderOf(orderNo);
    expect(after).toMatchObject({ state: 'chargeback', refundedAmount: 500 });
    expect(after.attention?.split('\n')).toEqual(['Chargeback received: answer the dispute or accept it.']);
    // A second run does not touch it (chargeback is not swept).
    await h.kit.sweeper.runOnce();
    expect((await h.orderOf(orderNo)).version).toBe(after.version);
  });

  it('a one-off order held for risk review does not become a subscription through a signed in-review body posted with a recurring_id', async () => {
    const orderNo = uniqueOrderNo('RV-REVIEW');
    const { back } = await payOnHostedPage(h, orderNo, REVIEW_CARD);
    await h.sandbox.notifier.flush();
    const reviewing = await h.orderOf(orderNo);
    expect(reviewing.state).toBe('in_review');
    const returned = { ...onlyForm(back).fields };
    // The shopper's browser holds these signed return fields; in_review is not a confirmable outcome.
    expect(await post(h, { ...returned, webhooks_type: 'payment', payment_status: '2100', recurring_id: 'EVIL-REVIEW', contract_name: 'Call +1 555 0100', result_info: '0100:Pending risk review.' })).toBe(200);
    // Staff approve the payment at the gateway: a genuine one-off order is paid.
    const [approved] = await h.kit.client.batch.review([{ transaction_id: reviewing.transactionId ?? '', order_no: orderNo, currency: 'USD', amount: 2500, review_flag: '1' }]);
    expect(approved?.ok).toBe(true);
    await h.sandbox.notifier.flush();
    const after = await h.orderOf(orderNo);
    expect(after.state).toBe('paid');
    expect(after.data.recurringId).toBeUndefined();
    const listed = (await h.kit.store.listSubscriptions?.({ limit: 1000 })) ?? [];
    expect(listed.map((o) => o.id)).not.toContain(after.id);
  });
});

describe('a card that changes between attempts under one order number (engine, real port shape: the query carries no card)', () => {
  it('declined with one card, then paid with another (hosted-page retry, late money): the order shows the card that paid', async () => {
    const { store, engine, gateway } = engineSetup();
    const order = await makeOrder(store, { state: 'requires_action' });
    gateway.knows(order, { outcome: 'declined', transactionId: 'T-A', maskedCard: undefined });
    const declined = await engine.apply({ orderId: order.id, source: 'notify', outcome: 'declined', transactionId: 'T-A', maskedCard: '400000******0002', confirm: true, dedupeKey: 'n-a' });
    expect(declined.order).toMatchObject({ state: 'declined', maskedCard: '400000******0002' });
    gateway.knows(order, { outcome: 'approved', transactionId: 'T-B', maskedCard: undefined });
    const paid = await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved', transactionId: 'T-B', maskedCard: '555555******4444', confirm: true, dedupeKey: 'n-b' });
    expect(paid.order).toMatchObject({ state: 'paid', transactionId: 'T-B' });
    expect(paid.order?.maskedCard).toBe('555555******4444');
  });
});
