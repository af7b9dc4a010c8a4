/**
 * Migration 002 (the refund ledger) on a database a previous version wrote: an order refunded
 * before keeps its refunded amount as one succeeded `import` row, so deriving the total from the
 * rows changes nothing, and a refund recorded afterwards adds to it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsDir } from '../../../server/orders/stores/sql/migrations.js';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { dropSchema, openPgTarget, uniqueSchema } from './pg-target.js';

const dir = mkdtempSync(join(tmpdir(), 'refund-migration-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const V1 = (dialect: 'sqlite' | 'postgres'): string => readFileSync(join(migrationsDir(dialect), '001_orders.sql'), 'utf8');

async function checkUpgraded(store: OrderStore): Promise<void> {
  const refunded = await store.getByOrderNo('OLD-1');
  expect(refunded).toMatchObject({ state: 'partially_refunded', refundedAmount: 500 });
  expect(await store.listRefunds(refunded!.id)).toEqual([
    expect.objectContaining({ id: `import-${refunded!.id}`, referenceId: null, amount: 500, currency: 'EUR', status: 'succeeded', source: 'import' }),
  ]);
  const untouched = await store.getByOrderNo('OLD-2');
  expect(await store.listRefunds(untouched!.id)).toEqual([]);
  // A refund recorded later adds to the carried-over total.
  const moved = await store.transition(refunded!.id, refunded!.version, {}, undefined, {
    refunds: [{ referenceId: 'T-9', amount: 200, currency: 'EUR', status: 'succeeded', source: 'notify' }],
  });
  expect(moved.ok && moved.order.refundedAmount).toBe(700);
}

describe('migration 002_refunds on an existing database', () => {
  it('SQLite: existing refunded totals become import rows', async () => {
    const path = join(dir, 'v1.sqlite');
    const db = new Database(path);
    db.exec(V1('sqlite'));
    db.exec(`CREATE TABLE checkout_schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`);
    db.prepare('INSERT INTO checkout_schema_migrations VALUES (1, ?, ?)').run('orders', Date.now());
    const insert = db.prepare(`INSERT INTO checkout_orders (id, order_no, amount, currency, state, captured_amount, refunded_amount, created_at, updated_at)
      VALUES (?, ?, 1000, 'EUR', ?, 1000, ?, 1, 2)`);
    insert.run('o-1', 'OLD-1', 'partially_refunded', 500);
    insert.run('o-2', 'OLD-2', 'paid', 0);
    db.close();
    const store = createSqliteStore({ path });
    try {
      await checkUpgraded(store);
    } finally {
      await store.close();
    }
  });

  it('PostgreSQL: existing refunded totals become import rows', async () => {
    const target = await openPgTarget();
    const schema = uniqueSchema('upgrade');
    try {
      await target.pool.query(`CREATE SCHEMA "${schema}"`);
      const client = await target.pool.connect();
      try {
        await client.query(`SET search_path TO "${schema}"`);
        await client.query(V1('postgres'));
        await client.query(`CREATE TABLE checkout_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
        await client.query(`INSERT INTO checkout_schema_migrations (version, name) VALUES (1, 'orders')`);
        for (const [id, no, state, refunded] of [['o-1', 'OLD-1', 'partially_refunded', 500], ['o-2', 'OLD-2', 'paid', 0]] as const) {
          await client.query(`INSERT INTO checkout_orders (id, order_no, amount, currency, state, captured_amount, refunded_amount, created_at, updated_at)
            VALUES ($1, $2, 1000, 'EUR', $3, 1000, $4, now(), now())`, [`${id}-${schema}`, no, state, refunded]);
        }
        await client.query('RESET search_path');
      } finally {
        client.release();
      }
      const store = await createPostgresStore({ pool: target.pool, schema });
      await checkUpgraded(store);
    } finally {
      await dropSchema(target.pool, schema);
      await target.end();
    }
  });
});
