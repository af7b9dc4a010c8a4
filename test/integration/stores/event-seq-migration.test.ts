/**
 * Migration 007 (no index of its own for an event's (order_id, seq)) on a database a previous
 * version wrote: every event is kept with its number and data, the order's log still lists in
 * seq order (also by page), dedupe keys still refuse a repeat, numbering goes on from the last
 * event, and the index is gone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations } from '../../../server/orders/stores/sql/migrations.js';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { dropSchema, openPgTarget, uniqueSchema } from './pg-target.js';

const dir = mkdtempSync(join(tmpdir(), 'event-seq-migration-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const BEFORE = 6;
/** Each order's events as the previous version wrote them, inserted out of seq order. */
const EVENTS: ReadonlyArray<readonly [order: string, seq: number, dedupeKey: string | null, to: string]> = [
  ['o-1', 3, 'notify:aaa', 'paid'],
  ['o-2', 1, null, 'created'],
  ['o-1', 1, null, 'created'],
  ['o-1', 2, 'pay:submitted', 'pending'],
  ['o-2', 2, 'pay:submitted', 'pending'],
];

async function checkUpgraded(store: OrderStore, ids: (order: string) => string): Promise<void> {
  const order = await store.getByOrderNo('OLD-1');
  expect(order).toMatchObject({ state: 'paid', version: 3 });
  const log = await store.listEvents(order!.id);
  expect(log.map((e) => [e.seq, e.dedupeKey, e.toState, e.id])).toEqual([
    [1, null, 'created', `e-${ids('o-1')}-1`],
    [2, 'pay:submitted', 'pending', `e-${ids('o-1')}-2`],
    [3, 'notify:aaa', 'paid', `e-${ids('o-1')}-3`],
  ]);
  expect(log[2]?.data).toEqual({ n: 3 });
  expect((await store.listEvents(order!.id, { beforeSeq: 3, limit: 1 })).map((e) => e.seq)).toEqual([2]);
  expect((await store.listEvents(ids('o-2'))).map((e) => e.seq)).toEqual([1, 2]);

  // A repeated key is still refused, and numbering goes on from the order's last event.
  expect((await store.appendEvent(order!.id, { type: 'note', source: 'api', dedupeKey: 'notify:aaa' })).appended).toBe(false);
  const note = await store.appendEvent(order!.id, { type: 'note', source: 'api', dedupeKey: 'note-1' });
  expect(note.appended && note.event.seq).toBe(4);
  const moved = await store.transition(order!.id, order!.version, { state: 'refunded' }, { type: 'transition', source: 'api', fromState: 'paid', toState: 'refunded', dedupeKey: 'refund-1' });
  expect(moved.ok && moved.event?.seq).toBe(5);
  const repeat = await store.transition(moved.ok ? moved.order.id : '', moved.ok ? moved.order.version : 0, { attention: 'x' }, { type: 'note', source: 'api', dedupeKey: 'refund-1' });
  expect(repeat.ok).toBe(false);
  expect((await store.listEvents(order!.id)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
}

describe('migration 007_event_seq_index on an existing database', () => {
  it('SQLite: the log is kept and its (order_id, seq) index dropped', async () => {
    const path = join(dir, 'v6.sqlite');
    const db = new Database(path);
    db.exec(`CREATE TABLE checkout_schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`);
    for (const m of loadMigrations('sqlite').filter((m) => m.version <= BEFORE)) {
      db.exec(m.sql);
      db.prepare('INSERT INTO checkout_schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, Date.now());
    }
    const order = db.prepare(`INSERT INTO checkout_orders (id, order_no, amount, currency, state, version, captured_amount, created_at, updated_at, last_event_seq)
      VALUES (?, ?, 1000, 'EUR', ?, ?, 1000, 1, 2, ?)`);
    order.run('o-1', 'OLD-1', 'paid', 3, 3);
    order.run('o-2', 'OLD-2', 'pending', 2, 2);
    const event = db.prepare(`INSERT INTO checkout_order_events (id, order_id, seq, type, source, to_state, dedupe_key, data, created_at)
      VALUES (?, ?, ?, 'transition', 'notify', ?, ?, ?, 3)`);
    for (const [o, seq, key, to] of EVENTS) event.run(`e-${o}-${seq}`, o, seq, to, key, JSON.stringify({ n: seq }));
    db.close();

    const store = createSqliteStore({ path });
    try {
      await checkUpgraded(store, (o) => o);
    } finally {
      await store.close();
    }
    const after = new Database(path, { readonly: true });
    try {
      const indexes = after.prepare(`SELECT name FROM pragma_index_list('checkout_order_events') ORDER BY name`).all() as { name: string }[];
      const columns = indexes.map(({ name }) => (after.prepare(`SELECT name FROM pragma_index_info(?) ORDER BY seqno`).all(name) as { name: string }[]).map((c) => c.name).join(','));
      expect(columns.sort()).toEqual(['id', 'order_id,dedupe_key']);
      expect(after.prepare('SELECT MAX(version) AS v FROM checkout_schema_migrations').get()).toEqual({ v: 7 });
    } finally {
      after.close();
    }
  });

  it('PostgreSQL: the log is kept and its (order_id, seq) constraint dropped', async () => {
    const target = await openPgTarget();
    const schema = uniqueSchema('eventseq');
    const ids = (o: string): string => `${o}-${schema}`;
    try {
      await target.pool.query(`CREATE SCHEMA "${schema}"`);
      const client = await target.pool.connect();
      try {
        await client.query(`SET search_path TO "${schema}"`);
        await client.query(`CREATE TABLE checkout_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
        for (const m of loadMigrations('postgres').filter((m) => m.version <= BEFORE)) {
          await client.query(m.sql);
          await client.query('INSERT INTO checkout_schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        }
        for (const [o, no, state, version] of [['o-1', 'OLD-1', 'paid', 3], ['o-2', 'OLD-2', 'pending', 2]] as const) {
          await client.query(`INSERT INTO checkout_orders (id, order_no, amount, currency, state, version, captured_amount, created_at, updated_at, last_event_seq)
            VALUES ($1, $2, 1000, 'EUR', $3, $4, 1000, now(), now(), $4)`, [ids(o), no, state, version]);
        }
        for (const [o, seq, key, to] of EVENTS) {
          await client.query(`INSERT INTO checkout_order_events (id, order_id, seq, type, source, to_state, dedupe_key, data, created_at)
            VALUES ($1, $2, $3, 'transition', 'notify', $4, $5, $6, now())`, [`e-${ids(o)}-${String(seq)}`, ids(o), seq, to, key, JSON.stringify({ n: seq })]);
        }
        await client.query('RESET search_path');
      } finally {
        client.release();
      }
      const store = await createPostgresStore({ pool: target.pool, schema });
      await checkUpgraded(store, ids);
      const { rows } = await target.pool.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'checkout_order_events' ORDER BY indexdef`, [schema]);
      expect((rows as { indexdef: string }[]).map((r) => /\(([^)]*)\)$/.exec(r.indexdef)?.[1])).toEqual(['order_id, dedupe_key', 'id']);
    } finally {
      await dropSchema(target.pool, schema);
      await target.end();
    }
  });
});
