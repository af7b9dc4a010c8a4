/**
 * Applies the PostgreSQL schema files once each, in order, each in its own transaction. A
 * session advisory lock keyed by the schema name is held around the whole step, so instances
 * starting at the same moment migrate one after the other and the later ones find nothing to do.
 */
import type { Logger } from '../../logging.js';
import type { PgClientLike, PgPoolLike } from './postgres-client.js';
import { quoteSchema } from './postgres-queries.js';
import { loadMigrations } from './sql/migrations.js';

export const POSTGRES_MIGRATIONS_TABLE = 'checkout_schema_migrations';

async function applyAll(client: PgClientLike, schema: string, logger: Logger): Promise<number[]> {
  const q = quoteSchema(schema);
  // Checked first: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when the schema exists.
  const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (exists.rows.length === 0) await client.query(`CREATE SCHEMA ${q}`);
  await client.query(`CREATE TABLE IF NOT EXISTS ${q}.${POSTGRES_MIGRATIONS_TABLE} (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const applied: number[] = [];
  for (const migration of loadMigrations('postgres')) {
    await client.query('BEGIN');
    try {
      const done = await client.query(`SELECT 1 FROM ${q}.${POSTGRES_MIGRATIONS_TABLE} WHERE version = $1`, [migration.version]);
      if (done.rows.length > 0) {
        await client.query('ROLLBACK');
        continue;
      }
      await client.query(`SET LOCAL search_path TO ${q}`);
      await client.query(migration.sql);
      await client.query(`INSERT INTO ${q}.${POSTGRES_MIGRATIONS_TABLE} (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
    applied.push(migration.version);
    logger.info({ store: 'postgres', schema, migration: migration.version, name: migration.name }, 'applied order store migration');
  }
  return applied;
}

/** Brings `schema` up to date. Returns the versions this call applied (empty when current). */
export async function migratePostgres(pool: PgPoolLike, schema: string, logger: Logger): Promise<number[]> {
  const lockKey = `acquiring-checkout-kit:order-store:${schema}`;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey]);
    try {
      return await applyAll(client, schema, logger);
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey]);
    }
  } catch (error) {
    // Discard the connection: it may still hold the lock or an open transaction.
    broken = error instanceof Error ? error : new Error('migration failed');
    throw error;
  } finally {
    client.release(broken);
  }
}
