/** The reconcile engine on a memory store: confirming with the gateway, card-free events, and the rank property. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KitError, ValidationError } from '../../../server/errors.js';
import type { PaymentOutcome } from '../../../server/gateway/codes.js';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { PaymentFact } from '../../../server/orders/engine-types.js';
import { rankOf } from '../../../server/orders/state-machine.js';
import type { EventPage, OrderStore } from '../../../server/orders/store.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { PAN, engineSetup, makeOrder } from './fixtures.js';

describe('reconcile engine: confirming with the gateway', () => {
  it("uses the gateway's answer over the claim", async () => {
    const { store, engine, gateway, rec } = engineSetup();
    const order = await makeOrder(store, { state: 'requires_action' });
    gateway.knows(order, { outcome: 'approved', transactionId: 'T-76' });
    const result = await engine.apply({ orderId: order.id, source: 'notify', outcome: 'declined', confirm: true, dedupeKey: 'c0' });
    expect(result).toMatchObject({ status: 'applied', order: { state: 'paid', transactionId: 'T-76' } });
    expect(result.unconfirmed).toBeUndefined();
    expect(result.event).toMatchObject({ dedupeKey: 'c0', data: { outcome: 'approved', confirmed: true, claimedOutcome: 'declined' } });
    expect(rec.count('onPaid')).toBe(1);
  });

  it('applies an answer behind the claim for what it says, and keeps the claim unseen until the gateway confirms it', async () => {
    const { store, engine, gateway, rec } = engineSetup();
    const order = await makeOrder(store, { state: 'requires_action' });
    gateway.knows(order, { outcome: 'declined', transactionId: 'T-77' });
    const claim: PaymentFact = { orderId: order.id, source: 'notify', outcome: 'approved', confirm: true, dedupeKey: 'c1' };
    const result = await engine.apply(claim);
    expect(result).toMatchObject({ status: 'applied', unconfirmed: true, order: { state: 'declined', transactionId: 'T-77' } });
    expect(result.event).toMatchObject({ dedupeKey: null, data: { outcome: 'declined', confirmed: true, claimedOutcome: 'approved' } });
    expect(gateway.calls).toEqual([[order.orderNo]]);
    expect(rec.count('onFailed')).toBe(1);
    expect(rec.count('onPaid')).toBe(0);
    expect((await store.listEvents(order.id)).some((e) => e.dedupeKey === 'c1')).toBe(false);

    // The gateway catches up (late money): the same claim, retried, is applied and flagged.
    gateway.knows(order, { outcome: 'approved', transactionId: 'T-77' });
    const retried = await engine.apply(claim);
    expect(retried).toMatchObject({ status: 'applied', order: { state: 'paid' } });
    expect(retried.unconfirmed).toBeUndefined();
    expect(retried.order?.attention).toMatch(/after the order was declined/);
    expect(rec.count('onPaid')).toBe(1);
    expect(await engine.apply(claim)).toMatchObject({ status: 'duplicate' });
  });

  it('tells a repeated confirming notification by its key alone, however long the log, and stays right on a store that ignores the key', async () => {
    /** A store that counts the events its listEvents hands back; `keyBlind` drops the page's dedupeKey, as a store written before it did. */
    const counting = (keyBlind: boolean) => {
      const inner = createMemoryStore();
      let read = 0;
      const store: OrderStore = Object.assign(Object.create(inner) as OrderStore, {
        listEvents: async (orderId: string, page?: EventPage) => {
          const events = await inner.listEvents(orderId, keyBlind && page !== undefined ? { ...page, dedupeKey: undefined } : page);
          read += events.length;
          return events;
        },
      });
      return { store, read: () => read };
    };
    for (const keyBlind of [false, true]) {
      const { store, read } = counting(keyBlind);
      const { engine, gateway, rec } = engineSetup({ store });
      const order = await makeOrder(store, { state: 'pending' });
      for (let i = 0; i < 300; i++) await store.appendEvent(order.id, { type: 'note', source: 'admin', dedupeKey: `note-${i}`, data: {} });
      gateway.knows(order, { outcome: 'approved', transactionId: 'T-80' });
      const fact: PaymentFact = { orderId: order.id, source: 'notify', outcome: 'approved', confirm: true, dedupeKey: 'n-long' };
      expect(await engine.apply(fact)).toMatchObject({ status: 'applied', order: { state: 'paid' } });
      const before = read();
      expect(await engine.apply(fact)).toMatchObject({ status: 'duplicate', order: { state: 'paid' } });
      // One event (the repeated one) read to tell it, not the 301 of the log; a key-blind store reads them all and still answers right.
      expect(read() - before).toBe(keyBlind ? 301 : 1);
      expect(gateway.calls).toEqual([[order.orderNo]]);
      expect(rec.count('onPaid')).toBe(1);
    }
  });

  it('does not apply when the gateway does not know the order, and keeps the dedupe key free', async () => {
    const { store, engine, gateway, rec } = engineSetup();
    const order = await makeOrder(store, { state: 'pending' });
    const fact: PaymentFact = { orderId: order.id, source: 'notify', outcome: 'approved', confirm: true, dedupeKey: 'n-9' };
    expect(await engine.apply(fact)).toMatchObject({ status: 'noop', unconfirmed: true, order: { state: 'pending' } });
    expect(rec.calls).toEqual([]);
    gateway.knows(order);
    expect(await engine.apply(fact)).toMatchObject({ status: 'applied', order: { state: 'paid' } });
    expect((await store.listEvents(order.id)).map((e) => e.type)).toEqual(['unconfirmed', 'transition']);
  });

  it('records a mismatch in the gateway answer and does not apply it', async () => {
    const { store, engine, gateway } = engineSetup();
    const order = await makeOrder(store, { state: 'pending' });
    gateway.knows(order, { amount: 1 });
    const result = await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved', confirm: true });
    expect(result.status).toBe('mismatch');
    expect((await store.get(order.id))!).toMatchObject({ state: 'pending', attention: expect.stringMatching(/different amount/) });
  });

  it('only asks the gateway for outcomes that move money or end the payment', async () => {
    const { store, engine, gateway } = engineSetup();
    const order = await makeOrder(store);
    await engine.apply({ orderId: order.id, source: 'pay', outcome: 'requires_action', confirm: true });
    expect(gateway.calls).toEqual([]);
    expect((await store.get(order.id))!.state).toBe('requires_action');
  });

  it('propagates a query failure without recording the fact', async () => {
    const { store, engine, gateway } = engineSetup();
    const order = await makeOrder(store, { state: 'pending' });
    gateway.fail(new Error('gateway unreachable'));
    await expect(engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved', confirm: true, dedupeKey: 'n-1' })).rejects.toThrow(/unreachable/);
    expect(await store.listEvents(order.id)).toEqual([]);
    expect(await store.acquireLease(order.id, 'someone-else', 1000)).toBe(true); // lease released
  });

  it('confirm() queries by id, order number or order object and applies the answer', async () => {
    const { store, engine, gateway, rec } = engineSetup();
    const order = await makeOrder(store, { state: 'pending' });
    expect(await engine.confirm(order.orderNo, 'return')).toMatchObject({ status: 'noop', unconfirmed: true });
    gateway.knows(order, { outcome: 'authorized' });
    expect(await engine.confirm(order.id, 'return', 'shopper')).toMatchObject({ status: 'applied', order: { state: 'authorized' } });
    expect(await engine.confirm(order, 'return')).toMatchObject({ status: 'noop' });
    expect(await engine.confirm('missing', 'return')).toMatchObject({ status: 'not_found' });
    expect(rec.count('onAuthorized')).toBe(1);
    expect((await store.listEvents(order.id)).find((e) => e.type === 'transition')).toMatchObject({ source: 'return', actor: 'shopper', data: { confirmedBy: 'query' } });
  });

  it('refuses to confirm without a gateway port, with a coded error', async () => {
    const store = createMemoryStore();
    const engine = createReconcileEngine({ store });
    const order = await makeOrder(store);
    const error = await engine.confirm(order.id, 'return').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KitError);
    expect((error as KitError).code).toBe('ERR_CONFIG');
  });
});

describe('reconcile engine: card-free events', () => {
  it('never stores card data in events, whatever the caller passes', async () => {
    const { store, engine, log } = engineSetup();
    const order = await makeOrder(store);
    await engine.apply({
      orderId: order.id, source: 'pay', outcome: 'approved',
      data: { card: PAN, security_code: '123', note: `paid with ${PAN}`, nested: { cvv: '999', expiry: '12/34' } },
    });
    await engine.record(order.id, { type: 'return_hint', source: 'return', data: { raw: `card=${PAN}&cvv=123`, number: PAN } });
    const stored = JSON.stringify([await store.listEvents(order.id), await store.get(order.id)]);
    expect(stored).not.toContain(PAN);
    expect(stored).not.toContain('"123"');
    expect(stored).not.toContain('12/34');
    expect(log.lines.some((l) => l.includes('Card data removed'))).toBe(true);
  });

  it('refuses a full card number as the masked card, without echoing it', async () => {
    const { store, engine } = engineSetup();
    const order = await makeOrder(store);
    const error = await engine.apply({ orderId: order.id, source: 'pay', outcome: 'approved', maskedCard: PAN }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe('maskedCard');
    expect(JSON.stringify((error as ValidationError).toJSON())).not.toContain(PAN);
    expect((await store.get(order.id))!.state).toBe('created');
  });

  it('record() appends with dedupe and no state change', async () => {
    const { store, engine } = engineSetup();
    const order = await makeOrder(store);
    expect((await engine.record(order.id, { type: 'admin_note', source: 'admin', actor: 'staff', dedupeKey: 'x' })).appended).toBe(true);
    expect((await engine.record(order.id, { type: 'admin_note', source: 'admin', actor: 'staff', dedupeKey: 'x' })).appended).toBe(false);
    expect((await store.get(order.id))!.version).toBe(0);
  });
});

describe('reconcile engine: property', () => {
  const outcomes: PaymentOutcome[] = [
    'approved', 'authorized', 'pending', 'in_review', 'requires_action', 'declined', 'failed',
    'cancelled', 'expired', 'partially_refunded', 'refunded', 'chargeback', 'unknown',
  ];

  it('never moves an order backwards and calls hooks once per stored transition, for any facts in any order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ outcome: fc.constantFrom(...outcomes), key: fc.constantFrom('a', 'b', 'c', 'd', undefined) }), { maxLength: 25 }),
        async (facts) => {
          const { store, engine, rec } = engineSetup();
          const order = await makeOrder(store);
          let rank = rankOf(order);
          // Concurrent pairs: duplicates and reordering at the same time.
          for (let i = 0; i < facts.length; i += 2) {
            await Promise.all(
              facts.slice(i, i + 2).map((f) =>
                engine.apply({ orderId: order.id, source: 'notify', outcome: f.outcome, dedupeKey: f.key === undefined ? undefined : `${f.key}-${f.outcome}` }),
              ),
            );
            const now = (await store.get(order.id))!;
            expect(rankOf(now)).toBeGreaterThanOrEqual(rank);
            rank = rankOf(now);
          }
          const events = await store.listEvents(order.id);
          const transitions = events.filter((e) => e.type === 'transition');
          expect(rec.count('onTransition')).toBe(transitions.length);
          // A refund outcome without references is never applied as a total: it flags the order.
          expect((await store.get(order.id))!.version).toBe(transitions.length + events.filter((e) => e.type === 'attention').length);
        },
      ),
      { numRuns: 60 },
    );
  });
});
