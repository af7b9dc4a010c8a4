/**
 * Hostile: the compare-and-set from the caller's copy (`transition(…, known)`) under real
 * concurrency, on every real store: memory, one SQLite file (WAL) through one and through two
 * store instances, and PostgreSQL (a schema of its own per test) through one and through two
 * pools. The reconcile engine on top of it is raced in known-races-engine.test.ts (shared
 * support: known-races-support.ts).
 *
 * Invariant checked after every race: the stored order is what its event log replays to (one
 * write event per version, states chained from `created`, no gap in `seq`), the refunded amount
 * is the sum of the succeeded refund rows, nothing was lost or applied twice, a stale copy never
 * overwrote a newer state, and every refusal was answered with the order as stored.
 *
 * The PostgreSQL cases need TEST_DATABASE_URL and are skipped without it.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { TransitionResult } from '../../../server/orders/store.js';
import type { Order } from '../../../server/orders/types.js';
import { TEST_DATABASE_URL } from '../stores/pg-target.js';
import { BACKENDS, closeBackends, newOrder, paidOrder, read, replayProblems, succeeded, type Pair } from './known-races-support.js';

if (!TEST_DATABASE_URL) {
  console.warn('\n  SKIPPED: the PostgreSQL cases of known-races.test.ts. Set TEST_DATABASE_URL to run them.\n');
}

afterAll(closeBackends);

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(`transition from the caller's copy, racing: ${backend.name}`, () => {
    let pair: Pair;
    const open = async (): Promise<Pair> => {
      pair = await backend.open();
      return pair;
    };
    afterEach(async () => {
      await (pair as Pair | undefined)?.close();
    });

    it('a copy taken before five transitions is refused by 20 parallel writers on both handles, with and without events; nothing is written', async () => {
      const { a, b } = await open();
      const input = newOrder();
      await a.create(input);
      const stale = await read(a, input.id);
      let version = 0;
      for (const to of ['pending', 'requires_action', 'pending', 'authorized', 'paid'] as const) {
        const moved = await (version % 2 === 0 ? a : b).transition(input.id, version, { state: to, data: { [`step${version}`]: true } }, { type: 'transition', source: 'notify', fromState: (await read(a, input.id)).state, toState: to });
        expect(moved.ok).toBe(true);
        version++;
      }
      const before = await read(b, input.id);
      const eventsBefore = await a.listEvents(input.id);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => {
        const store = i % 2 === 0 ? a : b;
        const patch = { state: 'declined' as const, capturedAmount: 0, data: { stale: i } };
        if (i % 4 < 2) return store.transition(input.id, stale.version, patch, { type: 'transition', source: 'pay', dedupeKey: `stale-${i}` }, { outbox: [{ hook: 'onFailed', payload: {} }] }, stale);
        return store.transition(input.id, stale.version, patch, undefined, i % 4 === 2 ? { outbox: [{ hook: 'onFailed', payload: {} }] } : undefined, stale);
      }));
      for (const r of results) expect(r).toEqual({ ok: false, current: before });
      expect(await read(a, input.id)).toEqual(before);
      expect(before).toMatchObject({ state: 'paid', version: 5 });
      expect(before.data).not.toHaveProperty('stale');
      expect(await b.listEvents(input.id)).toEqual(eventsBefore);
      expect(await a.listOutbox({ orderId: input.id, limit: 100 })).toEqual([]);
      expect(await replayProblems(a, input.id)).toEqual([]);
    });

    it('20 racers each retrying from the copy they were refused with: no update lost, none applied twice', async () => {
      const { a, b } = await open();
      const input = newOrder();
      await a.create(input);
      const first = await read(a, input.id);
      const racers = 20;
      const tries: number[] = [];
      await Promise.all(Array.from({ length: racers }, async (_, i) => {
        const store = i % 2 === 0 ? a : b;
        let copy: Order = first;
        for (let n = 1; ; n++) {
          // A read-modify-write of the amounts and data: a store writing from a stale copy would lose another racer's step.
          const patch = { capturedAmount: copy.capturedAmount + 1, data: { [`racer${i}`]: copy.version } };
          const r: TransitionResult = await store.transition(input.id, copy.version, patch, { type: 'details', source: 'api', fromState: copy.state, actor: `r${i}`, dedupeKey: `racer-${i}` }, { outbox: [{ hook: 'onTransition', payload: { racer: i } }] }, copy);
          if (r.ok) {
            expect(r.order.version).toBe(copy.version + 1);
            tries.push(n);
            return;
          }
          expect(r.current).not.toBeNull();
          copy = r.current!;
          expect(copy.data).not.toHaveProperty(`racer${i}`);
        }
      }));
      expect(tries).toHaveLength(racers);
      const final = await read(b, input.id);
      expect(final.version).toBe(racers);
      expect(final.capturedAmount).toBe(racers);
      expect(Object.keys(final.data).sort()).toEqual(Array.from({ length: racers }, (_, i) => `racer${i}`).sort());
      // Each racer's data records the version it wrote from: all distinct, 0..19.
      expect(Object.values(final.data).map(Number).sort((x, y) => x - y)).toEqual(Array.from({ length: racers }, (_, i) => i));
      const events = await a.listEvents(input.id);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: racers }, (_, i) => i + 1));
      const outbox = await a.listOutbox({ orderId: input.id, limit: 100 });
      expect(outbox).toHaveLength(racers);
      // Each hook call keeps the order as its own transition left it.
      expect(outbox.map((e) => e.order.version)).toEqual(Array.from({ length: racers }, (_, i) => i + 1));
      expect(await replayProblems(a, input.id)).toEqual([]);
    });

    it('a stale copy with refund rows and no event is refused and writes no refund row', async () => {
      const { a, b } = await open();
      const { input, paid } = await paidOrder(a);
      const stale = paid.order;
      // Another writer moves the order on (staff flag it) after the copy was taken.
      expect((await b.transition(input.id, 1, { attention: 'look at this' }, { type: 'attention', source: 'admin', fromState: 'paid' })).ok).toBe(true);
      const current = await read(a, input.id);
      const refused = await b.transition(input.id, stale.version, { state: 'partially_refunded' }, undefined, { refunds: [succeeded('R-STALE', 300)] }, stale);
      expect(refused).toEqual({ ok: false, current });
      expect.soft(await a.listRefunds(input.id)).toEqual([]);
      expect(await read(a, input.id)).toEqual(current);
      // The ledger is still the order's: the next refund counts only itself (a row the refused
      // transition left behind would be counted now, 300 refunded that the gateway never refunded).
      const next = await a.transition(input.id, current.version, { state: 'partially_refunded' }, { type: 'transition', source: 'notify', fromState: 'paid', toState: 'partially_refunded' }, { refunds: [succeeded('R-1', 100)] }, current);
      if (!next.ok) throw new Error('refund refused');
      expect(next.order.refundedAmount).toBe(100);
      expect(await replayProblems(b, input.id)).toEqual([]);
    });

    it('parallel partial refunds from one current copy, with and without events: one lands, the losers write no row', async () => {
      const { a, b } = await open();
      const { input, paid } = await paidOrder(a);
      const copy = paid.order;
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => {
        const store = i % 2 === 0 ? a : b;
        const event = i % 3 === 0 ? undefined : { type: 'refund', source: 'notify' as const, fromState: 'paid' as const, dedupeKey: `refund-${i}` };
        return store.transition(input.id, copy.version, {}, event, { refunds: [succeeded(`R-${i}`, 100 + i)] }, copy);
      }));
      const winners = results.flatMap((r, i) => (r.ok ? [i] : []));
      expect(winners).toHaveLength(1);
      const w = winners[0]!;
      const stored = await read(a, input.id);
      expect(stored.refundedAmount).toBe(100 + w);
      expect(stored.version).toBe(2);
      for (const r of results.filter((x) => !x.ok)) expect(r).toEqual({ ok: false, current: stored });
      expect((await b.listRefunds(input.id)).map((r) => [r.referenceId, r.amount])).toEqual([[`R-${w}`, 100 + w]]);
      expect(await replayProblems(a, input.id, 'created', w % 3 === 0 ? 1 : 0)).toEqual([]);
    });

    it('appends on one handle interleaved with copy transitions on the other: events numbered 1..n, none lost', async () => {
      const { a, b } = await open();
      const input = newOrder();
      await a.create(input);
      const first = await read(a, input.id);
      const writers = Array.from({ length: 8 }, async (_, i) => {
        let copy = first;
        for (;;) {
          const r = await a.transition(input.id, copy.version, { data: { [`w${i}`]: true } }, { type: 'details', source: 'api', fromState: 'created', dedupeKey: `w-${i}` }, undefined, copy);
          if (r.ok) return r.event!.seq;
          copy = r.current!;
        }
      });
      const appenders = Array.from({ length: 8 }, (_, i) => b.appendEvent(input.id, { type: 'note', source: 'api', dedupeKey: `note-${i}` }).then((r) => (r.appended ? r.event.seq : -1)));
      const seqs = await Promise.all([...writers, ...appenders]);
      expect([...seqs].sort((x, y) => x - y)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
      const events = await b.listEvents(input.id);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
      expect(await read(b, input.id)).toMatchObject({ version: 8 });
      expect(await replayProblems(a, input.id)).toEqual([]);
    });

    it('the same notification key from one current copy on both handles, and after it was appended: stored once', async () => {
      const { a, b } = await open();
      const input = newOrder({ state: 'pending' });
      await a.create(input);
      const copy = await read(b, input.id);
      const results = await Promise.all(Array.from({ length: 16 }, (_, i) =>
        (i % 2 === 0 ? a : b).transition(input.id, 0, { state: 'paid', capturedAmount: 1000 }, { type: 'transition', source: 'notify', fromState: 'pending', toState: 'paid', dedupeKey: 'n-paid' }, { outbox: [{ hook: 'onPaid', payload: {} }] }, copy)));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const paid = await read(a, input.id);
      expect(paid).toMatchObject({ state: 'paid', version: 1, capturedAmount: 1000 });
      // A reordered notification was recorded by append (no version change): the copy is current,
      // but its key is taken, so the transition carrying that key is refused whole.
      expect((await a.appendEvent(input.id, { type: 'ignored', source: 'notify', dedupeKey: 'n-late' })).appended).toBe(true);
      const late = await Promise.all([a, b].map((s) => s.transition(input.id, 1, { state: 'refunded', refundedAmount: 1000 }, { type: 'transition', source: 'notify', fromState: 'paid', toState: 'refunded', dedupeKey: 'n-late' }, { outbox: [{ hook: 'onRefunded', payload: {} }] }, paid)));
      for (const r of late) expect(r).toEqual({ ok: false, current: paid });
      expect(await b.listOutbox({ orderId: input.id, limit: 10 })).toHaveLength(1);
      expect(await replayProblems(a, input.id, 'pending')).toEqual([]);
    });

    it('a copy of another order is ignored: the named order is written from its own row, the other untouched', async () => {
      const { a, b } = await open();
      const target = newOrder({ data: { mine: true } });
      const other = newOrder({ amount: 7, data: { theirs: true } });
      await a.create(target);
      await a.create(other);
      const otherCopy = await read(b, other.id);
      const moved = await b.transition(target.id, 0, { state: 'pending', data: { step: 1 } }, { type: 'transition', source: 'pay', fromState: 'created', toState: 'pending' }, undefined, otherCopy);
      if (!moved.ok) throw new Error('refused');
      expect(moved.order).toMatchObject({ id: target.id, orderNo: target.orderNo, amount: 1000, version: 1, data: { mine: true, step: 1 } });
      expect(moved.order.data).not.toHaveProperty('theirs');
      expect(await read(a, target.id)).toEqual(moved.order);
      expect(await read(a, other.id)).toEqual(otherCopy);
      // The other order's copy, relabelled with this order's id and a version it is not at.
      const relabelled = { ...otherCopy, id: target.id, version: 0 };
      expect(await a.transition(target.id, 0, { state: 'paid' }, { type: 'transition', source: 'notify' }, undefined, relabelled)).toEqual({ ok: false, current: moved.order });
      expect(await b.listEvents(other.id)).toEqual([]);
    });

    it('a copy edited since the store returned it (older state, forged amounts) never reaches the stored row', async () => {
      const { a, b } = await open();
      const input = newOrder();
      const created = await a.create(input);
      const paid = await a.transition(input.id, 0, { state: 'paid', capturedAmount: 1000, transactionId: 'T-REAL' }, { type: 'transition', source: 'notify', fromState: 'created', toState: 'paid' });
      if (!paid.ok) throw new Error('not paid');
      // The version-0 copy relabelled to the stored version, with its amounts forged.
      const edited: Order = { ...created, version: paid.order.version, capturedAmount: 1, transactionId: 'T-FORGED' };
      const withEvent = await b.transition(input.id, paid.order.version, { attention: 'note' }, { type: 'attention', source: 'admin', fromState: 'paid' }, undefined, edited);
      const withoutEvent = await b.transition(input.id, paid.order.version, { attention: 'note' }, undefined, undefined, edited);
      const stored = await read(a, input.id);
      expect(stored).toMatchObject({ state: 'paid', capturedAmount: 1000, transactionId: 'T-REAL' });
      if (backend.name !== 'memory') {
        // SQLite writes from the copy and PostgreSQL answers from it, so both check the copy's columns with the version: refused like a stale copy.
        expect(withEvent).toEqual({ ok: false, current: paid.order });
        expect(withoutEvent).toEqual({ ok: false, current: paid.order });
        expect(stored).toEqual(paid.order);
      }
      expect(await replayProblems(a, input.id, 'created', withoutEvent.ok ? 1 : 0)).toEqual([]);
    });

    it('a stale or future expectedVersion, with a copy of that version: the stored version decides', async () => {
      const { a, b } = await open();
      const input = newOrder();
      await a.create(input);
      const old = await read(a, input.id);
      expect((await a.transition(input.id, 0, { state: 'pending' }, { type: 'transition', source: 'pay', fromState: 'created', toState: 'pending' })).ok).toBe(true);
      const current = await read(b, input.id);
      // expectedVersion stale, copy's version stale: refused.
      expect(await b.transition(input.id, 0, { state: 'declined' }, { type: 'transition', source: 'notify' }, undefined, old)).toEqual({ ok: false, current });
      // A version from the future: refused.
      expect(await b.transition(input.id, 7, { state: 'declined' }, { type: 'transition', source: 'notify' }, undefined, { ...current, version: 7 })).toEqual({ ok: false, current });
      expect(await read(a, input.id)).toEqual(current);
      expect(await replayProblems(a, input.id)).toEqual([]);
    });
  });
}

