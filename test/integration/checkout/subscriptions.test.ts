/**
 * Subscriptions end to end over real HTTP: the shop's kit, the sandbox gateway, its clock
 * advanced through three deductions (one declined), a duplicate notification, and a cancel.
 * Each deduction is a child order of the first payment, and `onRecurringCharge` runs once per
 * deduction through the outbox; `onPaid` runs for the first payment only.
 */
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminRouter } from '../../../server/admin/index.js';
import { createMemoryAdminStore } from '../../../server/admin/stores/memory.js';
import type { RecurringCharge } from '../../../server/orders/hooks.js';
import type { Order } from '../../../server/orders/types.js';
import { headerAuthorize } from '../admin/harness.js';
import { Browser, CARD, cardFields, onlyForm, parseForms, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness, type Page } from './journeys-harness.js';

let h: Harness;
const charges: { parent: string; deduction: string; status: string; eventId: string; amount: number }[] = [];
const paid: string[] = [];

beforeAll(async () => {
  h = await startHarness({
    hooks: {
      onPaid: (order) => {
        paid.push(order.orderNo);
      },
      onRecurringCharge: (charge: RecurringCharge) => {
        charges.push({ parent: charge.parent.orderNo, deduction: charge.deduction.orderNo, status: charge.status, eventId: charge.eventId, amount: charge.deduction.amount });
      },
    },
  });
});
afterAll(async () => {
  await h.close();
});

async function subscribe(orderNo: string): Promise<Order> {
  const browser = new Browser();
  const { payUrl } = await h.kit.createPayment({
    ...paymentInput(orderNo),
    subscription: { contract_name: 'Tea club', contract_amount: 950, interval: 'month', interval_count: '1' },
  });
  const page = await browser.get(payUrl);
  await browser.submit(page, payForm(page, 'card'), cardFields(CARD.approve));
  await h.sandbox.notifier.flush();
  const parent = await h.orderOf(orderNo);
  expect(parent.state).toBe('paid');
  expect(parent.data.recurringId).toMatch(/^RC/);
  return parent;
}

const PLAN = { contract_name: 'Tea club', contract_amount: 950, interval: 'month', interval_count: '1' } as const;

async function openPayPage(orderNo: string): Promise<{ browser: Browser; page: Page }> {
  const browser = new Browser();
  const { payUrl } = await h.kit.createPayment({ ...paymentInput(orderNo), subscription: { ...PLAN } });
  return { browser, page: await browser.get(payUrl) };
}

/** Pays on the gateway's hosted card page; returns the page that posts the shopper back to the shop. */
async function payOnHostedPage(orderNo: string): Promise<{ browser: Browser; back: Page }> {
  const { browser, page } = await openPayPage(orderNo);
  const autosubmit = await browser.submit(page, payForm(page, 'hosted'));
  let cardPage = await browser.submit(autosubmit, onlyForm(autosubmit));
  while (!parseForms(cardPage).some((f) => 'card' in f.fields)) cardPage = await browser.submit(cardPage, onlyForm(cardPage));
  const cardForm = parseForms(cardPage).find((f) => 'card' in f.fields);
  if (cardForm === undefined) throw new Error('no card form on the hosted page');
  return { browser, back: await browser.submit(cardPage, cardForm, cardFields(CARD.approve)) };
}

/** Pays with a card the issuer challenges, passes the challenge; returns the page that posts the shopper back. */
async function payWithChallenge(orderNo: string): Promise<{ browser: Browser; back: Page }> {
  const { browser, page } = await openPayPage(orderNo);
  const toIssuer = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.challenge));
  expect((await h.orderOf(orderNo)).state).toBe('requires_action');
  const challenge = await browser.submit(toIssuer, onlyForm(toIssuer));
  return { browser, back: await browser.submit(challenge, onlyForm(challenge), {}, { name: 'decision', value: 'pass' }) };
}

/** The admin's subscriptions list, as staff see it. */
async function adminSubscriptionList(): Promise<string> {
  const app = express();
  app.use('/admin', createAdminRouter({ kit: h.kit, authorize: headerAuthorize, csrfSecret: 'subscriptions-test-csrf-secret-0123456789', adminStore: createMemoryAdminStore() }));
  const res = await request(app).get('/admin/subscriptions').set('x-staff', 'lee');
  expect(res.status).toBe(200);
  return res.text;
}

/** The subscription is stored on the first payment, listed by the admin, and a lost deduction notification is recovered by the sweeper. */
async function expectFoundAndSwept(orderNo: string): Promise<void> {
  const parent = await h.orderOf(orderNo);
  expect(parent.state).toBe('paid');
  const recurringId = parent.data.recurringId;
  expect(recurringId).toMatch(/^RC/);
  expect(recurringId).toBe(h.sandbox.ledger.transactions().find((t) => t.orderNo === orderNo && t.deductionOf === undefined)?.recurringId);
  expect(parent.data.contractName).toBe('Tea club');
  expect(await adminSubscriptionList()).toContain(`data-recurring-id="${String(recurringId)}"`);

  h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
  await advanceMonth();
  expect(await childrenOf(parent)).toEqual([]);
  const report = await h.kit.sweeper.runOnce();
  expect(report.subscriptions?.recorded).toBeGreaterThanOrEqual(1);
  const children = await childrenOf(parent);
  expect(children.map((c) => [c.state, c.amount, c.data.recurringId])).toEqual([['paid', 950, recurringId]]);
  expect(charges.filter((c) => c.parent === orderNo).map((c) => c.status)).toEqual(['paid']);
}

async function advanceMonth(): Promise<void> {
  h.sandbox.clock.advance({ months: 1, days: 1 });
  await h.sandbox.notifier.flush();
}

const childrenOf = async (parent: Order): Promise<Order[]> => (await h.kit.store.listChildren?.(parent.id)) ?? [];

describe('subscription deductions', () => {
  it('records three deductions (one declined) as child orders, calls onRecurringCharge once each, and stops after cancel', async () => {
    const orderNo = uniqueOrderNo('SUB');
    const parent = await subscribe(orderNo);
    const recurringId = String(parent.data.recurringId);

    await advanceMonth();
    h.sandbox.subscriptions.failNext(recurringId);
    await advanceMonth();
    await advanceMonth();

    const children = await childrenOf(parent);
    expect(children.map((c) => [c.state, c.amount, c.currency, c.parentId])).toEqual([
      ['paid', 950, 'USD', parent.id],
      ['declined', 950, 'USD', parent.id],
      ['paid', 950, 'USD', parent.id],
    ]);
    const deductions = h.sandbox.ledger.transactions().filter((t) => t.recurringId === recurringId && t.deductionOf !== undefined);
    expect(children.map((c) => c.transactionId)).toEqual(deductions.map((t) => t.transactionId));
    expect(children.every((c) => c.data.recurringId === recurringId && typeof c.data.deductionTime === 'string')).toBe(true);

    const mine = charges.filter((c) => c.parent === orderNo);
    expect(mine.map((c) => [c.status, c.amount])).toEqual([['paid', 950], ['failed', 950], ['paid', 950]]);
    expect(new Set(mine.map((c) => c.eventId)).size).toBe(3);
    // The first payment's hook only; the deductions owe onRecurringCharge instead.
    expect(paid.filter((n) => n.startsWith(orderNo))).toEqual([orderNo]);
    expect((await h.orderOf(orderNo)).state).toBe('paid');

    // The gateway sends one deduction's notification twice: nothing new is recorded or called.
    const first = h.sandbox.ledger.notifications().find((n) => n.transactionId === deductions[0]?.transactionId);
    await h.control(`/notifications/${first?.id ?? ''}/twice`);
    await h.sandbox.notifier.flush();
    expect(await childrenOf(parent)).toHaveLength(3);
    expect(charges.filter((c) => c.parent === orderNo)).toHaveLength(3);
    const events = await h.kit.store.listEvents(children[0]?.id ?? '');
    expect(events.filter((e) => e.type === 'transition')).toHaveLength(1);

    const cancelled = await h.kit.client.subscriptions.cancel({ recurring_id: recurringId });
    expect(cancelled.ok).toBe(true);
    await advanceMonth();
    expect(await childrenOf(parent)).toHaveLength(3);
    expect(charges.filter((c) => c.parent === orderNo)).toHaveLength(3);
  });

  it('the sweeper reads subscription_result: records a deduction whose notification was lost, once, and the next deduction', async () => {
    const orderNo = uniqueOrderNo('SUB-SWEEP');
    const parent = await subscribe(orderNo);
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
    await advanceMonth();
    expect(await childrenOf(parent)).toEqual([]);

    const report = await h.kit.sweeper.runOnce();
    expect(report.subscriptions?.recorded).toBeGreaterThanOrEqual(1);
    const [child] = await childrenOf(parent);
    expect(child).toMatchObject({ state: 'paid', amount: 950, parentId: parent.id });
    const events = await h.kit.store.listEvents(child?.id ?? '');
    expect(events.find((e) => e.type === 'transition')?.source).toBe('sweeper');
    expect(charges.filter((c) => c.parent === orderNo).map((c) => c.status)).toEqual(['paid']);
    const updated = await h.orderOf(orderNo);
    expect(updated.data.subscriptionStatus).toBe('active');
    expect(updated.data.nextDeduction).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // The parent's own state is the first payment's: the deduction listed beside it changes nothing.
    expect(updated.state).toBe('paid');

    await h.kit.sweeper.runOnce();
    expect(await childrenOf(parent)).toHaveLength(1);
    expect(charges.filter((c) => c.parent === orderNo)).toHaveLength(1);
  });
});

describe('confirming a deduction\'s notification', () => {
  it('is asked of the gateway by (order_no, transaction_id): not recorded while the query fails, then recorded once as the gateway lists it', async () => {
    const orderNo = uniqueOrderNo('SUB-CONFIRM');
    const parent = await subscribe(orderNo);
    // The client tries a query three times: all three fail for the first delivery.
    h.sandbox.faults.add({ kind: 'http500', operation: 'retrievalTrans', orderNo, times: 3 });
    await advanceMonth();

    const [child, ...more] = await childrenOf(parent);
    expect(more).toEqual([]);
    expect(child).toMatchObject({ state: 'paid', amount: 950, parentId: parent.id });
    const transition = (await h.kit.store.listEvents(child?.id ?? '')).filter((e) => e.type === 'transition');
    expect(transition.map((e) => [e.source, e.data.confirmedBy])).toEqual([['notify', 'query']]);
    // The first delivery was answered 503 (the query failed), the gateway's retry recorded it.
    const delivery = h.sandbox.ledger.notifications().find((n) => n.transactionId === child?.transactionId);
    expect(delivery?.attempts.map((a) => a.httpStatus)).toEqual([503, 200]);
    expect(charges.filter((c) => c.parent === orderNo).map((c) => c.status)).toEqual(['paid']);
  });
});

describe('subscriptions started on the hosted page or after 3-D Secure', () => {
  it('hosted page, the shopper never comes back: the first payment\'s notification stores the recurring id', async () => {
    const orderNo = uniqueOrderNo('SUB-HOSTED');
    await payOnHostedPage(orderNo);
    await h.sandbox.notifier.flush();
    const events = await h.kit.store.listEvents((await h.orderOf(orderNo)).id);
    expect(events.filter((e) => e.type === 'return_hint')).toEqual([]);
    await expectFoundAndSwept(orderNo);
  });

  it('3-D Secure challenge, the first payment\'s notification lost: the return\'s confirming query stores the recurring id', async () => {
    const orderNo = uniqueOrderNo('SUB-3DS');
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
    const { browser, back } = await payWithChallenge(orderNo);
    await browser.submit(back, onlyForm(back));
    await h.sandbox.notifier.flush();
    const events = await h.kit.store.listEvents((await h.orderOf(orderNo)).id);
    expect(events.filter((e) => e.type === 'transition' && e.source === 'notify')).toEqual([]);
    await expectFoundAndSwept(orderNo);
  });

  it('hosted page, notification and return both lost: the sweeper\'s query stores the recurring id', async () => {
    const orderNo = uniqueOrderNo('SUB-HOST-SWEEP');
    h.sandbox.faults.add({ kind: 'dropNotification', orderNo, times: 1 });
    await payOnHostedPage(orderNo);
    await h.sandbox.notifier.flush();
    expect((await h.orderOf(orderNo)).state).toBe('pending');
    await h.kit.sweeper.runOnce();
    const events = await h.kit.store.listEvents((await h.orderOf(orderNo)).id);
    expect(events.find((e) => e.type === 'transition' && e.toState === 'paid')?.source).toBe('sweeper');
    await expectFoundAndSwept(orderNo);
  });
});
