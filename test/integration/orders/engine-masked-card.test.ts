/**
 * The masked card an order shows belongs to the transaction it holds. A shopper's attempt A
 * (T-A, card X) is declined and attempt B (T-B, card Y) pays under the same order number;
 * notifications arrive late, reordered or at once. The gateway's query names the transaction but
 * carries no card (the kit's real port), so the card comes from the claims: never from one about
 * a transaction other than the one the order ends on, and cleared when the order moves to a
 * transaction whose card nothing names. Real SQLite store; the gateway port answers like the
 * kit's own (no card). With and without `confirmNotifications`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentFact } from '../../../server/orders/engine-types.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import type { OrderStore } from '../../../server/orders/store.js';
import type { Order, OrderEvent } from '../../../server/orders/types.js';
import { engineSetup, makeOrder } from './fixtures.js';

const X = '400000******0002';
const Y = '555555******4444';
const Z = '378282*****0005';

let dir: string;
const opened: OrderStore[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'engine-masked-card-'));
});
afterAll(async () => {
  for (const store of opened) await store.close?.();
  rmSync(dir, { recursive: true, force: true });
});

/** An engine on a fresh SQLite file and an order waiting for its payment (no transaction yet). */
async function setup(state: Order['state'] = 'pending') {
  const store = createSqliteStore({ path: join(dir, `${String(Date.now())}-${String(Math.random()).slice(2)}.sqlite`) });
  opened.push(store);
  const s = engineSetup({ store });
  const order = await makeOrder(store, { state });
  return { ...s, order };
}

/** A notification about one attempt, as /notify hands it to the engine. */
function notified(order: Order, confirm: boolean, transactionId: string, outcome: PaymentFact['outcome'], maskedCard?: string, key = `${transactionId}-${outcome}`): PaymentFact {
  return { orderId: order.id, source: 'notify', outcome, transactionId, ...(maskedCard === undefined ? {} : { maskedCard }), confirm, dedupeKey: key, actor: 'gateway' };
}

/** The cards the order's events name for `transactionId`. */
async function cardsRecordedFor(store: OrderStore, order: Order, transactionId: string): Promise<unknown[]> {
  const events: OrderEvent[] = await store.listEvents(order.id);
  return events.filter((e) => e.data.transactionId === transactionId && e.data.maskedCard !== undefined).map((e) => e.data.maskedCard);
}

describe.each([true, false])('a declined attempt\'s card never shows on the payment a later attempt made (confirmNotifications: %s)', (confirm) => {
  it('A\'s declined notification after B paid: the order shows B\'s card, and A\'s card is never written with T-B', async () => {
    const { store, engine, gateway, order } = await setup();
    // At the gateway B already paid: that is what its query of the order number answers.
    gateway.knows(order, { outcome: 'approved', transactionId: 'T-B', maskedCard: undefined });
    if (!confirm) await engine.apply(notified(order, confirm, 'T-B', 'approved', Y));
    const late = await engine.apply(notified(order, confirm, 'T-A', 'declined', X));
    expect(late.order).toMatchObject({ state: 'paid', transactionId: 'T-B' });
    // Confirmed, A's body moved the order to B's payment: nothing named B's card yet.
    expect((await store.get(order.id))?.maskedCard).toBe(confirm ? null : Y);
    if (confirm) await engine.apply(notified(order, confirm, 'T-B', 'approved', Y));
    expect(await store.get(order.id)).toMatchObject({ state: 'paid', transactionId: 'T-B', maskedCard: Y });
    expect(await cardsRecordedFor(store, order, 'T-B')).not.toContain(X);
    const paid = (await store.listEvents(order.id)).filter((e) => e.type === 'transition' && e.toState === 'paid');
    expect(paid).toHaveLength(1);
    expect(paid[0]?.data).toMatchObject({ transactionId: 'T-B' });
    expect(paid[0]?.data.maskedCard).not.toBe(X);
  });

  it('A\'s declined notification after B paid with no card named: the order shows no card', async () => {
    const { store, engine, gateway, order } = await setup();
    gateway.knows(order, { outcome: 'approved', transactionId: 'T-B', maskedCard: undefined });
    if (!confirm) await engine.apply(notified(order, confirm, 'T-B', 'approved'));
    await engine.apply(notified(order, confirm, 'T-A', 'declined', X));
    expect(await store.get(order.id)).toMatchObject({ state: 'paid', transactionId: 'T-B', maskedCard: null });
    expect(await cardsRecordedFor(store, order, 'T-B')).not.toContain(X);
  });

  it.each([['A then B'], ['B then A']])('A and B delivered at once (%s): paid under T-B with B\'s card', async (arrival) => {
    const { store, engine, gateway, order } = await setup();
    gateway.knows(order, { outcome: 'approved', transactionId: 'T-B', maskedCard: undefined });
    const a = notified(order, confirm, 'T-A', 'declined', X);
    const b = notified(order, confirm, 'T-B', 'approved', Y);
    const results = await Promise.all((arrival === 'A then B' ? [a, b] : [b, a]).map((fact) => engine.apply(fact)));
    expect(results.map((r) => r.status)).not.toContain('busy');
    expect(await store.get(order.id)).toMatchObject({ state: 'paid', transactionId: 'T-B', maskedCard: Y });
    expect(await cardsRecordedFor(store, order, 'T-B')).not.toContain(X);
  });

  it.each([['A then B'], ['B then A']])('A and B delivered at once (%s), B\'s body without a card: paid under T-B with no card', async (arrival) => {
    const { store, engine, gateway, order } = await setup();
    gateway.knows(order, { outcome: 'approved', transactionId: 'T-B', maskedCard: undefined });
    const a = notified(order, confirm, 'T-A', 'declined', X);
    const b = notified(order, confirm, 'T-B', 'approved');
    await Promise.all((arrival === 'A then B' ? [a, b] : [b, a]).map((fact) => engine.apply(fact)));
    expect(await store.get(order.id)).toMatchObject({ state: 'paid', transactionId: 'T-B', maskedCard: null });
    expect(await cardsRecordedFor(store, order, 'T-B')).not.toContain(X);
  });

  it('moved from T-A to T-B by B\'s notification without a card: A\'s card is cleared', async () => {
    const { store, engine, gateway, order } = await setup();
    gateway.knows(order, { outcome: 'declined', transactionId: 'T-A', maskedCard: undefined });
    await engine.apply(notified(order, confirm, 'T-A', 'declined', X));
    expect(await store.get(order.id)).toMatchObject({ state: 'declined', transactionId: 'T-A', maskedCard: X });
    gateway.knows(order, { outcome: 'approved', transactionId: 'T-B', maskedCard: undefined });
    const moved = await engine.apply(notified(order, confirm, 'T-B', 'approved'));
    expect(moved.status).toBe('applied');
    expect(await store.get(order.id)).toMatchObject({ state: 'paid', transactionId: 'T-B', maskedCard: null });
    const paid = (await store.listEvents(order.id)).find((e) => e.toState === 'paid');
    expect(paid?.data).toMatchObject({ transactionId: 'T-B' });
    expect(paid?.data.maskedCard).toBeUndefined();
  });

  it('moved from T-A to T-B by B\'s notification naming B\'s card: B\'s card', async () => {
    const { store, engine, gateway, order } = await setup();
    gateway.knows(order, { outcome: 'declined', transactionId: 'T-A', maskedCard: undefined });
    await engine.apply(notified(order, confirm, 'T-A', 'declined', X));
    gateway.knows(order, { outcome: 'approved', transactionId: 'T-B', maskedCard: undefined });
    await engine.apply(notified(order, confirm, 'T-B', 'approved', Y));
    expect(await store.get(order.id)).toMatchObject({ state: 'paid', transactionId: 'T-B', maskedCard: Y });
  });
});

describe('an order moved to another transaction by the gateway\'s own answer', () => {
  it('the query (return, sweeper, staff) moves a declined T-A to a paid T-B: A\'s card is cleared, B\'s later notification names B\'s', async () => {
    const { store, engine, gateway, order } = await setup();
    await engine.apply({ orderId: order.id, source: 'pay', outcome: 'requires_action', transactionId: 'T-A', maskedCard: X });
    gateway.knows(order, { outcome: 'declined', transactionId: 'T-A', maskedCard: undefined });
    await engine.confirm(order.id, 'return', 'shopper');
    expect(await store.get(order.id)).toMatchObject({ state: 'declined', transactionId: 'T-A', maskedCard: X });
    gateway.knows(order, { outcome: 'approved', transactionId: 'T-B', maskedCard: undefined });
    const swept = await engine.confirm(order.id, 'sweeper', 'sweeper');
    expect(swept.status).toBe('applied');
    expect(await store.get(order.id)).toMatchObject({ state: 'paid', transactionId: 'T-B', maskedCard: null });
    // A's late notification names its own card: still not B's.
    await engine.apply(notified(order, true, 'T-A', 'declined', X));
    expect((await store.get(order.id))?.maskedCard).toBeNull();
    // B's notification names B's card: the order has none for T-B, so it takes it, once.
    const filled = await engine.apply(notified(order, true, 'T-B', 'approved', Y));
    expect(filled.event?.type).toBe('details');
    expect(await store.get(order.id)).toMatchObject({ state: 'paid', transactionId: 'T-B', maskedCard: Y });
    await engine.apply(notified(order, true, 'T-B', 'approved', Z, 'T-B-again'));
    expect((await store.get(order.id))?.maskedCard).toBe(Y);
    expect(await cardsRecordedFor(store, order, 'T-B')).not.toContain(X);
  });

  it('a query naming a card for the new transaction writes it with the transaction', async () => {
    const { store, engine, gateway, order } = await setup();
    await engine.apply(notified(order, false, 'T-A', 'declined', X));
    gateway.knows(order, { outcome: 'approved', transactionId: 'T-B', maskedCard: Z });
    await engine.confirm(order.id, 'admin', 'staff');
    expect(await store.get(order.id)).toMatchObject({ state: 'paid', transactionId: 'T-B', maskedCard: Z });
  });
});

describe('cards of one transaction (regressions)', () => {
  it('confirmed repeats of the same transaction keep the first confirmed card', async () => {
    const { store, engine, gateway, order } = await setup();
    gateway.knows(order, { outcome: 'approved', transactionId: 'T-B', maskedCard: undefined });
    await engine.apply(notified(order, true, 'T-B', 'approved', Y));
    const before = await store.get(order.id);
    expect(before).toMatchObject({ state: 'paid', transactionId: 'T-B', maskedCard: Y });
    await engine.apply(notified(order, true, 'T-B', 'approved', Z, 'T-B-again'));
    gateway.knows(order, { outcome: 'chargeback', transactionId: 'T-B', maskedCard: undefined });
    await engine.apply(notified(order, true, 'T-B', 'chargeback', Z));
    const after = await store.get(order.id);
    expect(after).toMatchObject({ state: 'chargeback', transactionId: 'T-B', maskedCard: Y });
    expect(await cardsRecordedFor(store, order, 'T-B')).not.toContain(Z);
  });

  it('the pay route\'s direct authorise answer stores its card with its transaction, and a later attempt\'s answer replaces both', async () => {
    const { store, engine, order } = await setup();
    const first = await engine.apply({ orderId: order.id, source: 'pay', outcome: 'declined', transactionId: 'T-A', amount: 1000, currency: 'EUR', maskedCard: X });
    expect(first.status).toBe('applied');
    expect(await store.get(order.id)).toMatchObject({ state: 'declined', transactionId: 'T-A', maskedCard: X });
    await engine.apply({ orderId: order.id, source: 'pay', outcome: 'approved', transactionId: 'T-B', amount: 1000, currency: 'EUR', maskedCard: Y });
    expect(await store.get(order.id)).toMatchObject({ state: 'paid', transactionId: 'T-B', maskedCard: Y });
    const paid = (await store.listEvents(order.id)).find((e) => e.toState === 'paid');
    expect(paid?.data).toMatchObject({ transactionId: 'T-B', maskedCard: Y });
  });

  it('a fact without a transaction id keeps the order\'s transaction and card', async () => {
    const { store, engine, order } = await setup();
    await engine.apply({ orderId: order.id, source: 'pay', outcome: 'authorized', transactionId: 'T-A', maskedCard: X });
    await engine.apply({ orderId: order.id, source: 'admin', outcome: 'approved', actor: 'staff' });
    expect(await store.get(order.id)).toMatchObject({ state: 'paid', transactionId: 'T-A', maskedCard: X });
  });
});
