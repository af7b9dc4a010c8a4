/**
 * Where the PostgreSQL store's tests run: the server at TEST_DATABASE_URL when set (CI), else an
 * in-process PGlite so a machine without a server still runs them. Each test isolates itself in
 * a schema of its own and drops it afterwards.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { PgPoolLike } from '../../../server/orders/stores/postgres.js';
import { createPglitePool } from '../../helpers/pglite-pool.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

export interface PgTarget {
  kind: 'server' | 'pglite';
  pool: PgPoolLike;
  end(): Promise<void>;
}

export function serverPool(max = 5): pg.Pool {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  return new pg.Pool({ connectionString: TEST_DATABASE_URL, max });
}

export async function openPgTarget(): Promise<PgTarget> {
  if (TEST_DATABASE_URL) {
    const pool = serverPool();
    return { kind: 'server', pool, end: () => pool.end() };
  }
  const pool = await createPglitePool();
  return { kind: 'pglite', pool, end: () => pool.end() };
}

export function uniqueSchema(label: string): string {
  return `t_${label}_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}

export async function dropSchema(pool: PgPoolLike, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}
