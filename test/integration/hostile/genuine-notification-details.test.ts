/**
 * Genuine flows next to the rules that keep a notification's unsigned details off the order:
 * subscriptions whose recurring details arrive with the first payment's notification, a masked
 * card known only from the notification, a card that changes between attempts, refunds on orders
 * refunded before the ledger (import row) with and without confirmNotifications, a refund made
 * before a chargeback found by the sweeper, and a signed in-review body posted with a recurring_id.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reserveRefund } from '../../../server/admin/gateway-actions.js';
import { takeNotification } from '../../../server/checkout/notification-facts.js';
import { createCheckoutKit, type CheckoutKit } from '../../../server/kit.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import type { Order } from '../../../server/orders/types.js';
import { ACCOUNT_ID, MERCHANT_ID, startShop, type Shop } from '../../reliability/support/shop.js';
import { Browser, CARD, cardFields, onlyForm, parseForms, payForm, paymentInput, startHarness, uniqueOrderNo, type Harness, type Page } from '../checkout/journeys-harness.js';
import { engineSetup, makeOrder } from '../orders/fixtures.js';
import { post } from './signed-return.js';
import { held, paidIn, refundBehindTheKit } from './support.js';

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

/** The orders schema as the version before the ledger shipped it. */
const V1 = execFileSync('git', ['show', '89535b5:server/orders/stores/sql/sqlite/001_orders.sql'], { encoding: 'utf8' });

describe('a staff refund on an order refunded before the ledger, its answer lost, its notification first', () => {
  let shop: Shop;
  const dir = mkdtempSync(join(tmpdir(), 'review-notify-'));
  beforeAll(async () => {
    shop = await startShop({ notifyTimeScale: 0.00001 });
    shop.sandbox.faults.add({ kind: 'dropNotification' });
  });
  afterAll(async () => {
    await shop.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let n = 0;
  async function upgraded(refunded: number, confirmNotifications: boolean): Promise<{ kit: CheckoutKit; order: Order }> {
    const paid = await paidIn(shop, `RVM-${Date.now().toString(36)}-${String(++n)}`, 1_000);
    expect((await refundBehindTheKit(shop, paid, refunded)).ok).toBe(true);
    const path = join(dir, `v1-${String(n)}.sqlite`);
    const db = new Database(path);
    db.exec(V1);
    db.exec('CREATE TABLE checkout_schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT');
    db.prepare('INSERT INTO checkout_schema_migrations VALUES (1, ?, ?)').run('orders', Date.now());
    db.prepare(`INSERT INTO checkout_orders (id, order_no, amount, currency, state, version, transaction_id, captured_amount, refunded_amount, created_at, updated_at)
      VALUES (?, ?, 1000, 'USD', 'partially_refunded', 3, ?, 1000, ?, 1, 2)`).run(paid.id, paid.orderNo, paid.transactionId, refunded);
    db.close();
    const kit = createCheckoutKit({
      store: createSqliteStore({ path }),
      gateway: { baseUrl: shop.gateway.baseUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: shop.signKey },
      publicUrl: 'http://127.0.0.1:1/checkout',
      tokenSecret: 'hostile-token-secret-0123456789abcdef0123',
      sweeper: { enabled: false },
      confirmNotifications,
    });
    return { kit, order: (await kit.store.get(paid.id))! };
  }

  async function staffRefundNotifiedFirst(confirmNotifications: boolean): Promise<{ order: Order; rows: [string, string, number][]; status: string }> {
    const { kit, order } = await upgraded(500, confirmNotifications);
    try {
      expect('id' in (await reserveRefund(kit.engine, order, 200, 'staff'))).toBe(true);
      const made = await refundBehindTheKit(shop, order, 200);
      expect(made.ok).toBe(true);
      const note = held(shop, order.orderNo).find((f) => f.refund_reference_id === made.referenceId);
      expect(note).toBeDefined();
      const taken = await takeNotification(kit.context, kit.client.notifications.verify(note!));
      const rows = (await kit.store.listRefunds(order.id)).map((r): [string, string, number] => [r.source, r.status, r.amount]).sort();
      return { order: (await kit.store.get(order.id))!, rows, status: taken.status };
    } finally {
      await kit.close();
    }
  }

  it('confirmNotifications: true — the notification settles the pending staff row, no attention', async () => {
    const { order, rows, status } = await staffRefundNotifiedFirst(true);
    expect(status).toBe('taken');
    expect(rows).toEqual([['admin', 'succeeded', 200], ['import', 'succeeded', 500]]);
    expect(order).toMatchObject({ refundedAmount: 700, attention: null });
  });

  it('confirmNotifications: false — the gateway\'s own notification of a staff refund settles the pending row, no attention', async () => {
    const { order, rows, status } = await staffRefundNotifiedFirst(false);
    expect(status).toBe('taken');
    expect(rows).toEqual([['admin', 'succeeded', 200], ['import', 'succeeded', 500]]);
    expect(order).toMatchObject({ refundedAmount: 700, attention: null });
  });
});
