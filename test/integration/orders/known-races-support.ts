/**
 * What the known-copy race tests share (known-races.test.ts: the stores; known-races-engine.test.ts:
 * the reconcile engine on them): every real store as a pair of handles on one database, orders to
 * race on, and the replay check that a stored order is what its event log says.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import type { ApplyResult, PaymentFact, ReconcileEngine } from '../../../server/orders/engine-types.js';
import type { RefundUpsert } from '../../../server/orders/refunds.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import type { NewOrder, Order, OrderState } from '../../../server/orders/types.js';
import { TEST_DATABASE_URL, dropSchema, serverPool, uniqueSchema } from '../stores/pg-target.js';
if (!TEST_DATABASE_URL) {
  console.warn('\n  SKIPPED: the PostgreSQL cases of known-races.test.ts. Set TEST_DATABASE_URL to run them.\n');
}

/** Two handles on one database: the same store twice (memory, one instance) or two instances. */
export interface Pair {
  a: OrderStore;
  b: OrderStore;
  close(): Promise<void>;
}

export interface Backend {
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

export const BACKENDS: Backend[] = [
  { name: 'memory', skip: false, open: () => Promise.resolve(((s: OrderStore) => ({ a: s, b: s, close: () => Promise.resolve() }))(createMemoryStore())) },
  { name: 'sqlite file (WAL), one instance', skip: false, open: () => Promise.resolve(openSqlite(false)) },
  { name: 'sqlite file (WAL), two instances', skip: false, open: () => Promise.resolve(openSqlite(true)) },
  { name: 'postgres, one pool', skip: !TEST_DATABASE_URL, open: () => openPostgres(false) },
  { name: 'postgres, two pools', skip: !TEST_DATABASE_URL, open: () => openPostgres(true) },
];

/** Ends the PostgreSQL pools and removes the SQLite files: each test file's afterAll. */
export async function closeBackends(): Promise<void> {
  for (const pool of pools) await pool.end();
  pools = [];
  rmSync(dir, { recursive: true, force: true });
}

export const newOrder = (extra: Partial<NewOrder> = {}): NewOrder => ({ id: randomUUID(), orderNo: `KR-${randomUUID().slice(0, 18)}`, amount: 1000, currency: 'EUR', ...extra });

/** A new order of 1000, paid and captured in full, and the copy that transition answered with. */
export async function paidOrder(store: OrderStore): Promise<{ input: NewOrder; paid: { order: Order } }> {
  const input = newOrder();
  await store.create(input);
  const paid = await store.transition(input.id, 0, { state: 'paid', capturedAmount: 1000 }, { type: 'transition', source: 'notify', fromState: 'created', toState: 'paid' });
  if (!paid.ok) throw new Error('not paid');
  return { input, paid };
}

export async function read(store: OrderStore, id: string): Promise<Order> {
  const order = await store.get(id);
  if (order === null) throw new Error(`order ${id} not found`);
  return order;
}

export const succeeded = (referenceId: string, amount: number): RefundUpsert => ({ referenceId, amount, currency: 'EUR', status: 'succeeded', source: 'notify' });

/** Events a transition writes (one per version); everything else the engine appends. */
const WRITE_TYPES = new Set(['transition', 'details', 'attention', 'refund']);

/**
 * What the event log replays to, compared with the stored order and its refund rows. Returns
 * the problems found (empty when the order is its log). `eventless`: transitions the test stored
 * without an event.
 */
export async function replayProblems(store: OrderStore, id: string, initial: OrderState = 'created', eventless = 0): Promise<string[]> {
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
export async function applied(engine: ReconcileEngine, fact: PaymentFact, known?: Order): Promise<ApplyResult> {
  for (let attempt = 0; ; attempt++) {
    const result = await engine.apply(fact, known === undefined ? {} : { known });
    if (result.status !== 'busy' || attempt >= 50) return result;
  }
}
