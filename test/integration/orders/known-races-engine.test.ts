/**
 * Hostile: the reconcile engine on the compare-and-set from the caller's copy, on every real store
 * that two engines can share (memory, one SQLite file through two store instances, PostgreSQL
 * through two pools): two engines per database racing the pay answer (planned from the submitted
 * copy) with duplicated and reordered notifications, refunds with captures, partial refunds past
 * the captured amount, and the sweeper. Each race ends with the replay check of
 * known-races-support.ts: the stored order is what its event log replays to, and hooks ran once.
 *
 * The PostgreSQL cases need TEST_DATABASE_URL and are skipped without it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { ApplyResult, PaymentFact, ReconcileEngine } from '../../../server/orders/engine-types.js';
import { createSweeper } from '../../../server/orders/sweeper.js';
import type { OrderStore } from '../../../server/orders/store.js';
import type { Order } from '../../../server/orders/types.js';
import { TEST_DATABASE_URL } from '../stores/pg-target.js';
import { fakeGateway, recordingHooks } from './fixtures.js';
import { BACKENDS, applied, closeBackends, newOrder, read, replayProblems, type Pair } from './known-races-support.js';

if (!TEST_DATABASE_URL) {
  console.warn('\n  SKIPPED: the PostgreSQL cases of known-races-engine.test.ts. Set TEST_DATABASE_URL to run them.\n');
}

afterAll(closeBackends);

/** The engine on top: two engines (one per handle), each with its own hooks. */
for (const backend of BACKENDS.filter((x) => x.name === 'memory' || x.name.includes('two'))) {
  describe.skipIf(backend.skip)(`reconcile engine from the caller's copy, racing: ${backend.name}`, () => {
    let pair: Pair;
    let engines: ReconcileEngine[] = [];
    let hooks: ReturnType<typeof recordingHooks>[] = [];
    const open = async (): Promise<{ a: OrderStore; b: OrderStore; ea: ReconcileEngine; eb: ReconcileEngine }> => {
      pair = await backend.open();
      hooks = [recordingHooks(), recordingHooks()];
      engines = [
        createReconcileEngine({ store: pair.a, hooks: hooks[0]!.hooks, owner: 'engine-a', leaseWaitMs: 10_000 }),
        createReconcileEngine({ store: pair.b, hooks: hooks[1]!.hooks, owner: 'engine-b', leaseWaitMs: 10_000 }),
      ];
      return { a: pair.a, b: pair.b, ea: engines[0]!, eb: engines[1]! };
    };
    /** Hook calls of both engines for the order, each eventId once (delivery is at least once). */
    const hookCalls = async (orderId: string, hook: 'onPaid' | 'onRefunded' | 'onTransition'): Promise<number> => {
      for (const e of engines) await e.outbox.runOnce();
      const ids = hooks.flatMap((h) => h.calls.filter((c) => c.hook === hook && c.orderId === orderId).map((c) => (c.info as { eventId: string }).eventId));
      return new Set(ids).size;
    };
    afterEach(async () => {
      for (const e of engines) await e.outbox.stop();
      await (pair as Pair | undefined)?.close();
    });

    it('the pay answer from the submitted copy races duplicated and reordered notifications on both engines', async () => {
      const { a, ea, eb } = await open();
      for (let round = 0; round < 3; round++) {
        const order = await a.create(newOrder());
        const submitted = await ea.apply({ orderId: order.id, source: 'pay', actor: 'shopper', outcome: 'pending', dedupeKey: 'pay:submitted', orderData: { submittedAt: new Date().toISOString() } }, { known: order });
        expect(submitted).toMatchObject({ status: 'applied', order: { state: 'pending', version: 1 } });
        const copy = submitted.order!;
        const tx = `T-${order.orderNo}`;
        const notify = (outcome: PaymentFact['outcome'], key: string): PaymentFact => ({ orderId: order.id, source: 'notify', outcome, amount: 1000, currency: 'EUR', transactionId: tx, dedupeKey: key });
        const jobs: Promise<ApplyResult>[] = [];
        // The gateway's notifications: 3-D Secure asked, then paid; each sent three times, the late ones last.
        const order3 = [notify('approved', 'n-paid'), notify('requires_action', 'n-3ds'), notify('approved', 'n-paid'), notify('pending', 'n-pending'), notify('approved', 'n-paid'), notify('requires_action', 'n-3ds')];
        order3.forEach((fact, i) => jobs.push(applied(i % 2 === 0 ? ea : eb, fact, i % 3 === 0 ? copy : undefined)));
        // The pay answer, planned from the submitted copy held across the gateway round trip.
        const payAnswer = { orderId: order.id, source: 'pay' as const, actor: 'shopper', outcome: round === 2 ? 'requires_action' as const : 'approved' as const, amount: 1000, currency: 'EUR', transactionId: tx, maskedCard: '424242******4242' };
        jobs.splice(round, 0, applied(round % 2 === 0 ? ea : eb, payAnswer, copy));
        const results = await Promise.all(jobs);
        const stored = await read(a, order.id);
        expect(stored).toMatchObject({ state: 'paid', capturedAmount: 1000, transactionId: tx });
        for (const r of results) {
          expect(['applied', 'noop', 'duplicate', 'rejected']).toContain(r.status);
          // A refusal or no-op answers with an order at least as new as the one it was decided on.
          if (r.status !== 'applied') expect(r.order!.version).toBeGreaterThanOrEqual(1);
        }
        const events = await a.listEvents(order.id);
        const paidMoves = events.filter((e) => e.type === 'transition' && e.toState === 'paid');
        expect(paidMoves).toHaveLength(1);
        expect(events.filter((e) => e.dedupeKey === 'n-paid')).toHaveLength(1);
        expect(await replayProblems(a, order.id)).toEqual([]);
        expect(await hookCalls(order.id, 'onPaid')).toBe(1);
      }
    });

    it('refund notifications race the capture notification of an authorised order; each refund counted once', async () => {
      const { a, b, ea, eb } = await open();
      const order = await a.create(newOrder());
      const auth = await ea.apply({ orderId: order.id, source: 'pay', outcome: 'authorized', amount: 1000, currency: 'EUR', transactionId: 'T-AUTH' }, { known: order });
      const copy = auth.order!;
      expect(copy.state).toBe('authorized');
      const capture: PaymentFact = { orderId: order.id, source: 'notify', outcome: 'approved', capturedAmount: 600, amount: 1000, currency: 'EUR', dedupeKey: 'n-capture' };
      const refund = (ref: string, amount: number, key: string): PaymentFact => ({ orderId: order.id, source: 'notify', outcome: 'partially_refunded', amount: 1000, currency: 'EUR', refunds: [{ referenceId: ref, amount, status: 'succeeded' }], dedupeKey: key });
      const facts = [refund('T-AUTH-01', 200, 'n-r1'), capture, refund('T-AUTH-02', 300, 'n-r2'), refund('T-AUTH-01', 200, 'n-r1'), capture, refund('T-AUTH-02', 300, 'n-r2-again')];
      const results = await Promise.all(facts.map((f, i) => applied(i % 2 === 0 ? ea : eb, f, copy)));
      for (const r of results) expect(r.status).not.toBe('busy');
      const stored = await read(b, order.id);
      expect((await a.listRefunds(order.id)).map((r) => [r.referenceId, r.amount, r.status]).sort()).toEqual([['T-AUTH-01', 200, 'succeeded'], ['T-AUTH-02', 300, 'succeeded']]);
      expect(stored.refundedAmount).toBe(500);
      expect(stored.state).toBe('partially_refunded');
      // The capture the first refund implied (the whole amount, the notification was not in yet)
      // or the capture notification's 600: whichever came first, once.
      const paidMoves = (await a.listEvents(order.id)).filter((e) => e.type === 'transition' && e.toState === 'paid');
      expect(paidMoves).toHaveLength(1);
      expect([600, 1000]).toContain(stored.capturedAmount);
      expect(await replayProblems(a, order.id, 'created')).toEqual([]);
      expect(await hookCalls(order.id, 'onPaid')).toBe(1);
    });

    it('partial refunds past the captured amount, from a stale copy on both engines: every refund once, the ledger and the state agree', async () => {
      const { a, b, ea, eb } = await open();
      const order = await a.create(newOrder());
      const paid = await ea.apply({ orderId: order.id, source: 'notify', outcome: 'approved', amount: 1000, currency: 'EUR', transactionId: 'T-P' }, { known: order });
      const copy = paid.order!;
      const refund = (n: number): PaymentFact => ({ orderId: order.id, source: 'notify', outcome: 'partially_refunded', amount: 1000, currency: 'EUR', refunds: [{ referenceId: `T-P-0${n}`, amount: 300, status: 'succeeded' }], dedupeKey: `n-r${n}` });
      const facts = [1, 2, 3, 4, 1, 3, 2, 4].map(refund);
      const results = await Promise.all(facts.map((f, i) => applied(i % 2 === 0 ? ea : eb, f, copy)));
      for (const r of results) expect(['applied', 'noop', 'duplicate']).toContain(r.status);
      const stored = await read(b, order.id);
      const rows = await a.listRefunds(order.id);
      expect(rows.map((r) => r.referenceId).sort()).toEqual(['T-P-01', 'T-P-02', 'T-P-03', 'T-P-04']);
      // What the gateway reported is recorded as reported, and flagged for staff: 1200 of 1000.
      expect(stored.refundedAmount).toBe(1200);
      expect(stored.state).toBe('refunded');
      expect(stored.attention).toContain('more than the 1000 EUR captured');
      expect(await replayProblems(a, order.id)).toEqual([]);
    });

    it('staff reservations from both engines at once never reserve more than was captured', async () => {
      const { a, b, ea, eb } = await open();
      const order = await a.create(newOrder());
      expect((await ea.apply({ orderId: order.id, source: 'notify', outcome: 'approved', amount: 1000, currency: 'EUR', transactionId: 'T-S' })).status).toBe('applied');
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => applied(i % 2 === 0 ? ea : eb, {
        orderId: order.id, source: 'admin', actor: `staff-${i}`, outcome: 'unknown', data: { action: 'refund', phase: 'reserved' }, refunds: [{ id: randomUUID(), amount: 300, status: 'pending' }],
      })));
      const reserved = results.filter((r) => r.status === 'applied' || r.status === 'noop');
      expect(reserved).toHaveLength(3);
      for (const r of results.filter((x) => x.status === 'rejected')) expect(r.reason).toContain('remains refundable');
      const rows = await b.listRefunds(order.id);
      expect(rows.filter((r) => r.status === 'pending').map((r) => r.amount)).toEqual([300, 300, 300]);
      expect(await replayProblems(a, order.id)).toEqual([]);
    });

    it('a lease-free copy held while another engine declined the order: the late pay answer is a no-op answered with the stored order', async () => {
      const { a, ea, eb } = await open();
      const order = await a.create(newOrder());
      const submitted = await ea.apply({ orderId: order.id, source: 'pay', outcome: 'pending', dedupeKey: 'pay:submitted' }, { known: order });
      const copy = submitted.order!;
      // While the pay request is at the gateway, the other instance hears it declined and then
      // that 3-D Secure had been asked (reordered), and the sweeper expires nothing.
      expect((await eb.apply({ orderId: order.id, source: 'notify', outcome: 'declined', amount: 1000, currency: 'EUR', dedupeKey: 'n-declined' })).status).toBe('applied');
      expect((await eb.apply({ orderId: order.id, source: 'notify', outcome: 'requires_action', amount: 1000, currency: 'EUR', dedupeKey: 'n-3ds' })).status).toBe('noop');
      const stored = await read(a, order.id);
      const results = await Promise.all([
        ea.apply({ orderId: order.id, source: 'pay', outcome: 'pending' }, { known: copy }),
        ea.apply({ orderId: order.id, source: 'pay', outcome: 'requires_action' }, { known: copy }),
        eb.apply({ orderId: order.id, source: 'pay', outcome: 'failed' }, { known: copy }),
      ]);
      for (const r of results) {
        expect(r.status).toBe('noop');
        expect(r.order).toEqual(stored);
      }
      expect(await read(a, order.id)).toEqual(stored);
      expect(await replayProblems(a, order.id)).toEqual([]);
    });

    it('the sweeper (lease, claimed copies) races the pay answers (submitted copies) and notifications of five orders', async () => {
      const { a, b, ea, eb } = await open();
      const gateway = fakeGateway();
      const sweeper = createSweeper({ engine: eb, store: b, gateway: gateway.port, stuckAfterMs: 1, expireAfterMs: 3_600_000, owner: 'sweeper-b' });
      const copies: Order[] = [];
      for (let i = 0; i < 5; i++) {
        const order = await a.create(newOrder());
        const submitted = await ea.apply({ orderId: order.id, source: 'pay', outcome: 'pending', dedupeKey: 'pay:submitted' }, { known: order });
        copies.push(submitted.order!);
        gateway.knows(order, { outcome: i === 4 ? 'declined' : 'approved', transactionId: `T-${order.orderNo}` });
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
      const answer = (copy: Order, i: number): PaymentFact => ({ orderId: copy.id, source: 'pay', outcome: i === 4 ? 'declined' : 'approved', amount: 1000, currency: 'EUR', transactionId: `T-${copy.orderNo}` });
      await Promise.all([
        sweeper.runOnce(),
        ...copies.map((copy, i) => applied(ea, answer(copy, i), copy)),
        ...copies.map((copy, i) => applied(eb, { ...answer(copy, i), source: 'notify', dedupeKey: `n-${copy.id}` }, copy)),
        sweeper.runOnce(),
      ]);
      for (const [i, copy] of copies.entries()) {
        const stored = await read(a, copy.id);
        expect(stored.state).toBe(i === 4 ? 'declined' : 'paid');
        expect(stored.transactionId).toBe(`T-${copy.orderNo}`);
        expect((await a.listEvents(copy.id)).filter((e) => e.type === 'transition' && e.fromState === 'pending')).toHaveLength(1);
        expect(await replayProblems(b, copy.id)).toEqual([]);
        expect(await hookCalls(copy.id, 'onPaid')).toBe(i === 4 ? 0 : 1);
      }
    });
  });
}

