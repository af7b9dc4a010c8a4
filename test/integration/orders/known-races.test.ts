/**
 * Hostile: the compare-and-set from the caller's copy (`transition(…, known)`) under real
 * concurrency, on every real store: memory, one SQLite file (WAL) through one and through two
 * store instances, and PostgreSQL (a schema of its own per test) through one and through two
 * pools. Then the reconcile engine on top of it, two engines per database, racing the pay answer
 * (planned from the submitted copy) with duplicated and reordered notifications, refunds with
 * captures, and partial refunds past the captured amount.
 *
 * Invariant checked after every race: the stored order is what its event log replays to (one
 * write event per version, states chained from `created`, no gap in `seq`), the refunded amount
 * is the sum of the succeeded refund rows, nothing was lost or applied twice, a stale copy never
 * overwrote a newer state, and every refusal was answered with the order as stored.
 *
 * The PostgreSQL cases need TEST_DATABASE_URL and are skipped without it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { ApplyResult, PaymentFact, ReconcileEngine } from '../../../server/orders/engine-types.js';
import type { RefundUpsert } from '../../../server/orders/refunds.js';
import { createSweeper } from '../../../server/orders/sweeper.js';
import type { OrderStore, TransitionResult } from '../../../server/orders/store.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import type { NewOrder, Order, OrderState } from '../../../server/orders/types.js';
import { TEST_DATABASE_URL, dropSchema, serverPool, uniqueSchema } from '../stores/pg-target.js';
import { fakeGateway, recordingHooks } from './fixtures.js';

if (!TEST_DATABASE_URL) {
  console.warn('\n  SKIPPED: the PostgreSQL cases of known-races.test.ts. Set TEST_DATABASE_URL to run them.\n');
}

/** Two handles on one database: the same store twice (memory, one instance) or two instances. */
interface Pair {
  a: OrderStore;
  b: OrderStore;
  close(): Promise<void>;
}

interface Backend {
  name: string;
  skip: boolean;
  open(): Promise<Pair>;
}

const dir = mkdtempSync(join(tmpdir(), 'known-races-'));
let pools: pg.Pool[] = [];
const pgPools = (): [pg.Pool, pg.Pool] => {
  if (pools.length === 0) pools = [serverPool(8), serverPool(8)];
  return [pools[0]!, pools[1]!];
};

async function openPostgres(two: boolean): Promise<Pair> {
  const [poolA, poolB] = pgPools();
  const schema = uniqueSchema('known');
  const a = await createPostgresStore({ pool: poolA, schema });
  const b = two ? await createPostgresStore({ pool: poolB, schema }) : a;
  return { a, b, close: () => dropSchema(poolA, schema) };
}

function openSqlite(two: boolean): Pair {
  const path = join(dir, `${randomUUID()}.sqlite`);
  const a = createSqliteStore({ path, busyTimeoutMs: 30_000 });
  const b = two ? createSqliteStore({ path, busyTimeoutMs: 30_000 }) : a;
  return {
    a,
    b,
    close: async () => {
      await a.close();
      if (b !== a) await b.close();
    },
  };
}

const BACKENDS: Backend[] = [
  { name: 'memory', skip: false, open: () => Promise.resolve(((s: OrderStore) => ({ a: s, b: s, close: () => Promise.resolve() }))(createMemoryStore())) },
  { name: 'sqlite file (WAL), one instance', skip: false, open: () => Promise.resolve(openSqlite(false)) },
  { name: 'sqlite file (WAL), two instances', skip: false, open: () => Promise.resolve(openSqlite(true)) },
  { name: 'postgres, one pool', skip: !TEST_DATABASE_URL, open: () => openPostgres(false) },
  { name: 'postgres, two pools', skip: !TEST_DATABASE_URL, open: () => openPostgres(true) },
];

afterAll(async () => {
  for (const pool of pools) await pool.end();
  pools = [];
  rmSync(dir, { recursive: true, force: true });
});

const newOrder = (extra: Partial<NewOrder> = {}): NewOrder => ({ id: randomUUID(), orderNo: `KR-${randomUUID().slice(0, 18)}`, amount: 1000, currency: 'EUR', ...extra });

/** A new order of 1000, paid and captured in full, and the copy that transition answered with. */
async function paidOrder(store: OrderStore): Promise<{ input: NewOrder; paid: { order: Order } }> {
  const input = newOrder();
  await store.create(input);
  const paid = await store.transition(input.id, 0, { state: 'paid', capturedAmount: 1000 }, { type: 'transition', source: 'notify', fromState: 'created', toState: 'paid' });
  if (!paid.ok) throw new Error('not paid');
  return { input, paid };
}

async function read(store: OrderStore, id: string): Promise<Order> {
  const order = await store.get(id);
  if (order === null) throw new Error(`order ${id} not found`);
  return order;
}

const succeeded = (referenceId: string, amount: number): RefundUpsert => ({ referenceId, amount, currency: 'EUR', status: 'succeeded', source: 'notify' });

/** Events a transition writes (one per version); everything else the engine appends. */
const WRITE_TYPES = new Set(['transition', 'details', 'attention', 'refund']);

/**
 * What the event log replays to, compared with the stored order and its refund rows. Returns
 * the problems found (empty when the order is its log). `eventless`: transitions the test stored
 * without an event.
 */
async function replayProblems(store: OrderStore, id: string, initial: OrderState = 'created', eventless = 0): Promise<string[]> {
  const order = await read(store, id);
  const events = await store.listEvents(id);
  const rows = await store.listRefunds(id);
  const problems: string[] = [];
  events.forEach((e, i) => {
    if (e.seq !== i + 1) problems.push(`event ${e.id} has seq ${e.seq}, expected ${i + 1}`);
  });
  const keys = events.map((e) => e.dedupeKey).filter((k) => k !== null);
  if (new Set(keys).size !== keys.length) problems.push(`a dedupe key is stored twice: ${keys.join(', ')}`);
  const writes = events.filter((e) => WRITE_TYPES.has(e.type));
  if (writes.length + eventless !== order.version) problems.push(`version ${order.version}, but ${writes.length} write events and ${eventless} transitions without one`);
  let state: OrderState = initial;
  for (const e of writes) {
    if (e.fromState !== state) problems.push(`event ${e.seq} (${e.type}) starts from ${String(e.fromState)}, the log was at ${state}`);
    if (e.type === 'transition' && e.toState !== null) state = e.toState;
  }
  if (state !== order.state) problems.push(`the log replays to ${state}, the order is ${order.state}`);
  const total = rows.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + r.amount, 0);
  if (total !== order.refundedAmount) problems.push(`refundedAmount ${order.refundedAmount}, succeeded refund rows ${total}`);
  const refs = rows.map((r) => r.referenceId).filter((r) => r !== null);
  if (new Set(refs).size !== refs.length) problems.push(`a refund reference is stored twice: ${refs.join(', ')}`);
  return problems;
}

/** Retries an apply the engine answered `busy` (another engine held the order's lease). */
async function applied(engine: ReconcileEngine, fact: PaymentFact, known?: Order): Promise<ApplyResult> {
  for (let attempt = 0; ; attempt++) {
    const result = await engine.apply(fact, known === undefined ? {} : { known });
    if (result.status !== 'busy' || attempt >= 50) return result;
  }
}

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
