import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore, migratePostgres } from '../../../server/orders/stores/postgres.js';
import { loadMigrations } from '../../../server/orders/stores/sql/migrations.js';
import { silentLogger } from '../../../server/logging.js';
import { TEST_DATABASE_URL, dropSchema, openPgTarget, serverPool, uniqueSchema } from './pg-target.js';
import type { PgTarget } from './pg-target.js';

let target: Promise<PgTarget> | undefined;
const open = (): Promise<PgTarget> => (target ??= openPgTarget());
const schemas: string[] = [];
const schemaFor = (label: string): string => {
  const schema = uniqueSchema(label);
  schemas.push(schema);
  return schema;
};
const order = (overrides = {}) => ({ id: randomUUID(), orderNo: `pg-${randomUUID()}`, amount: 1500, currency: 'EUR', ...overrides });
const PAN = '4242424242424242';

// Starting an in-process PostgreSQL takes seconds: do it under the hook timeout, not a test's.
beforeAll(async () => {
  await open();
});

afterAll(async () => {
  if (!target) return;
  const opened = await target;
  for (const schema of schemas) await dropSchema(opened.pool, schema);
  await opened.end();
});

describe('PostgreSQL store: schema and migrations', () => {
  it('creates its schema, applies each migration once and records it', async () => {
    const { pool } = await open();
    const schema = schemaFor('mig');
    await (await createPostgresStore({ pool, schema })).close();
    expect(await migratePostgres(pool, schema, silentLogger)).toEqual([]);
    const { rows } = await pool.query(`SELECT version, name FROM "${schema}".checkout_schema_migrations ORDER BY version`, []);
    expect(rows).toEqual(loadMigrations('postgres').map((m) => ({ version: m.version, name: m.name })));
  });

  it('migrates once when several instances start at the same moment', async () => {
    const { pool } = await open();
    const schema = schemaFor('race');
    const stores = await Promise.all(Array.from({ length: 4 }, () => createPostgresStore({ pool, schema })));
    const { rows } = await pool.query(`SELECT COUNT(*)::int AS n FROM "${schema}".checkout_schema_migrations`, []);
    expect(rows[0]?.n).toBe(loadMigrations('postgres').length);
    const created = await stores[0]?.create(order());
    expect(await stores[3]?.get(created?.id ?? '')).toEqual(created);
  });

  it('with migrate: false uses an existing schema as it is', async () => {
    const { pool } = await open();
    const schema = schemaFor('nomig');
    await migratePostgres(pool, schema, silentLogger);
    const store = await createPostgresStore({ pool, schema, migrate: false });
    expect(store.schema).toBe(schema);
    expect((await store.create(order())).version).toBe(0);
  });

  it('keeps tests apart by schema', async () => {
    const { pool } = await open();
    const a = await createPostgresStore({ pool, schema: schemaFor('iso') });
    const b = await createPostgresStore({ pool, schema: schemaFor('iso') });
    const created = await a.create(order());
    expect(await b.get(created.id)).toBeNull();
  });

  it('refuses bad options with ERR_CONFIG', async () => {
    const { pool } = await open();
    await expect(createPostgresStore({})).rejects.toMatchObject({ code: 'ERR_CONFIG' });
    await expect(createPostgresStore({ pool, connectionString: 'postgres://x' })).rejects.toMatchObject({ code: 'ERR_CONFIG' });
    await expect(createPostgresStore({ pool, schema: 'bad"; DROP TABLE x; --' })).rejects.toMatchObject({
      code: 'ERR_CONFIG',
      option: 'postgres.schema',
    });
  });

  it.skipIf(!TEST_DATABASE_URL)('opens and ends its own pool from a connection string', async () => {
    const schema = schemaFor('own');
    const store = await createPostgresStore({ connectionString: TEST_DATABASE_URL ?? '', schema });
    const created = await store.create(order());
    expect((await store.get(created.id))?.orderNo).toBe(created.orderNo);
    await store.close();
    await store.close();
    await expect(store.get(created.id)).rejects.toMatchObject({ code: 'ERR_STORE' });
  });

  /** The names of the statements prepared on the one connection of `pool`. */
  const prepared = async (pool: pg.Pool): Promise<string[]> =>
    (await pool.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map((r) => r.name);

  it.skipIf(!TEST_DATABASE_URL)('prepares its statements on a pg.Pool and keeps answering after a migration adds a column to a table it reads', async () => {
    const pool = serverPool(1);
    try {
      const schema = schemaFor('prep');
      const store = await createPostgresStore({ pool, schema });
      const created = await store.create(order());
      expect(await store.get(created.id)).toEqual(created);
      expect((await prepared(pool)).filter((n) => n.startsWith('checkout_')).length).toBeGreaterThan(0);
      // A prepared SELECT * can no longer return the table's new row type: the store runs it as text.
      await pool.query(`ALTER TABLE "${schema}".checkout_orders ADD COLUMN added_later text`);
      expect(await store.get(created.id)).toEqual(created);
      const moved = await store.transition(created.id, 0, { state: 'pending' }, { type: 'transition', source: 'pay', dedupeKey: 'k' });
      expect(moved).toMatchObject({ ok: true, order: { state: 'pending', version: 1 }, event: { dedupeKey: 'k', seq: 1 } });
      expect(await store.listEvents(created.id)).toHaveLength(1);
    } finally {
      await pool.end();
    }
  });

  it.skipIf(!TEST_DATABASE_URL)('with preparedStatements: false sends plain text only', async () => {
    const pool = serverPool(1);
    try {
      const store = await createPostgresStore({ pool, schema: schemaFor('text'), preparedStatements: false });
      const created = await store.create(order());
      expect((await store.transition(created.id, 0, { state: 'pending' }, { type: 'transition', source: 'pay' })).ok).toBe(true);
      expect(await prepared(pool)).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});

describe('PostgreSQL store: stored representation', () => {
  it('stores amounts as bigint, data as jsonb and dates as timestamptz', async () => {
    const { pool } = await open();
    const schema = schemaFor('types');
    const store = await createPostgresStore({ pool, schema });
    const created = await store.create(order({ amount: Number.MAX_SAFE_INTEGER, data: { k: 'ü' } }));
    const { rows } = await pool.query(
      `SELECT pg_typeof(amount)::text AS a, amount::text AS amount, pg_typeof(data)::text AS d, data->>'k' AS k, pg_typeof(created_at)::text AS c
       FROM "${schema}".checkout_orders WHERE id = $1`,
      [created.id],
    );
    expect(rows[0]).toEqual({ a: 'bigint', amount: String(Number.MAX_SAFE_INTEGER), d: 'jsonb', k: 'ü', c: 'timestamp with time zone' });
  });

  it('has no column for card number, CVV or expiry and refuses a full card number as the masked card', async () => {
    const { pool } = await open();
    const schema = schemaFor('card');
    const store = await createPostgresStore({ pool, schema });
    const created = await store.create(order());
    await expect(store.transition(created.id, 0, { state: 'paid', maskedCard: PAN })).rejects.toMatchObject({
      code: 'ERR_VALIDATION',
      field: 'patch.maskedCard',
    });
    expect(await store.get(created.id)).toMatchObject({ version: 0, maskedCard: null });
    expect((await store.transition(created.id, 0, { state: 'paid', maskedCard: '424242******4242' })).ok).toBe(true);

    const { rows: columns } = await pool.query('SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1', [schema]);
    const names = columns.map((c) => String(c.column_name));
    expect(names).toContain('masked_card');
    // No table holds a card number or security code; only a saved card keeps its expiry (docs/saved-cards.md).
    expect(names.filter((c) => /card_number|pan|cvv|cvc|security/i.test(c))).toEqual([]);
    expect(columns.filter((c) => String(c.table_name) !== 'checkout_saved_cards' && /expir/i.test(String(c.column_name)))).toEqual([]);
    const { rows } = await pool.query(
      `SELECT o.*, e.data AS event_data FROM "${schema}".checkout_orders o LEFT JOIN "${schema}".checkout_order_events e ON e.order_id = o.id`,
      [],
    );
    expect(JSON.stringify(rows)).not.toContain(PAN);
  });
});
