/**
 * The one schema migration runner of every store (orders and admin, SQLite and PostgreSQL).
 * A store ships its schema as versioned files `NNN_name.sql` in a folder per dialect and names a
 * version table; the runner applies the files it has not recorded, in order, each in its own
 * transaction, and records each one. Starting twice, or several instances at once, applies
 * nothing the second time: SQLite re-checks under the write lock (BEGIN IMMEDIATE), PostgreSQL
 * holds an advisory lock around the whole step.
 *
 * The version tables keep the layout the stores always had (version, name, applied_at), so a
 * database set up by an earlier release upgrades in place.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { KitError } from './errors.js';
import { silentLogger, type Logger } from './logging.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Migration {
  /** From the file name `NNN_name.sql`. */
  version: number;
  name: string;
  sql: string;
}

export interface MigrationSet {
  /** What the log and errors call the store, e.g. "order store". */
  store: string;
  /** Table recording the applied versions (a plain identifier). */
  table: string;
  migrations: readonly Migration[];
  logger?: Logger;
}

const FILE_RE = /^(\d{3,})_([a-z0-9_]+)\.sql$/;
const IDENTIFIER_RE = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const cache = new Map<string, readonly Migration[]>();

/**
 * The migrations in `dir`, ascending by version; read once per process. `missing` makes the
 * error for a folder that is not there (a build that did not copy the .sql files).
 */
export function loadMigrationFiles(dir: string, missing: (dir: string, cause: unknown) => Error): readonly Migration[] {
  const cached = cache.get(dir);
  if (cached) return cached;
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch (cause) {
    throw missing(dir, cause);
  }
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = FILE_RE.exec(file);
    if (!match?.[1] || !match[2]) continue;
    migrations.push({ version: Number(match[1]), name: match[2], sql: readFileSync(join(dir, file), 'utf8') });
  }
  migrations.sort((a, b) => a.version - b.version);
  if (migrations.length === 0) throw new KitError('ERR_STORE', `No schema files found in ${dir}`, { details: { dir } });
  migrations.forEach((m, i) => {
    if (i > 0 && migrations[i - 1]?.version === m.version) {
      throw new KitError('ERR_STORE', `Two migrations in ${dir} share version ${m.version}`, { details: { dir } });
    }
  });
  cache.set(dir, migrations);
  return migrations;
}

/**
 * Splits a schema file into statements: `--` comments dropped, a `;` at the end of a line ends
 * a statement. The schema files hold no function bodies, so this is enough, and it lets clients
 * that take one statement per query (the extended protocol) run them.
 */
export function splitStatements(sql: string): string[] {
  return sql
    .split('\n')
    .map((line) => line.replace(/--.*$/, ''))
    .join('\n')
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function checkTable(table: string): string {
  if (!IDENTIFIER_RE.test(table)) throw new TypeError(`"${table}" is not a plain identifier`);
  return table;
}

function warnIfNewer(set: MigrationSet, stored: number, dialect: Dialect): void {
  const known = set.migrations[set.migrations.length - 1]?.version ?? 0;
  if (stored > known) {
    (set.logger ?? silentLogger).warn({ store: dialect, stored, known }, `the ${set.store} database was migrated by a newer version of the kit`);
  }
}

/** Brings a SQLite database up to date. Returns the versions this call applied (empty when current). */
export function migrateSqlite(db: BetterSqlite3.Database, set: MigrationSet): number[] {
  const table = checkTable(set.table);
  const logger = set.logger ?? silentLogger;
  db.exec(`CREATE TABLE IF NOT EXISTS ${table} (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at INTEGER NOT NULL
  ) STRICT`);
  const isApplied = db.prepare<[number], { version: number }>(`SELECT version FROM ${table} WHERE version = ?`);
  const record = db.prepare<[number, string, number]>(`INSERT INTO ${table} (version, name, applied_at) VALUES (?, ?, ?)`);
  const newest = db.prepare<[], { v: number | null }>(`SELECT MAX(version) AS v FROM ${table}`);
  const applied: number[] = [];
  for (const migration of set.migrations) {
    // IMMEDIATE takes the write lock before the check, so two processes apply it once.
    db.transaction(() => {
      if (isApplied.get(migration.version)) return;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
      applied.push(migration.version);
      logger.info({ store: 'sqlite', migration: migration.version, name: migration.name }, `applied ${set.store} migration`);
    }).immediate();
  }
  warnIfNewer(set, newest.get()?.v ?? 0, 'sqlite');
  return applied;
}

/** One PostgreSQL connection, or a pool of them (node-postgres shapes). */
export interface MigrationPgClient {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}
export interface MigrationPgPool extends MigrationPgClient {
  /** A dedicated connection; without it the pool must have a single connection. */
  connect?(): Promise<MigrationPgClient & { release(error?: Error | boolean): void }>;
}

export interface PostgresMigrationSet extends MigrationSet {
  /** Schema holding the store's tables; created when missing. */
  schema: string;
  /** Advisory lock key (hashed with hashtext) held while migrating. */
  lockKey: string;
}

async function applyPostgres(client: MigrationPgClient, set: PostgresMigrationSet): Promise<number[]> {
  const q = `"${set.schema}"`;
  const table = `${q}.${checkTable(set.table)}`;
  const logger = set.logger ?? silentLogger;
  // Checked first: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when the schema exists.
  const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [set.schema]);
  if (exists.rows.length === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${q}`);
  await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const applied: number[] = [];
  for (const migration of set.migrations) {
    await client.query('BEGIN');
    try {
      const done = await client.query(`SELECT 1 FROM ${table} WHERE version = $1`, [migration.version]);
      if (done.rows.length > 0) {
        await client.query('ROLLBACK');
        continue;
      }
      await client.query(`SET LOCAL search_path TO ${q}`);
      for (const statement of splitStatements(migration.sql)) await client.query(statement);
      // applied_at given, not defaulted: a version table made without the default accepts it too.
      await client.query(`INSERT INTO ${table} (version, name, applied_at) VALUES ($1, $2, now())`, [migration.version, migration.name]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    applied.push(migration.version);
    logger.info({ store: 'postgres', schema: set.schema, migration: migration.version, name: migration.name }, `applied ${set.store} migration`);
  }
  const { rows } = await client.query(`SELECT MAX(version) AS v FROM ${table}`);
  warnIfNewer(set, Number((rows[0] as { v?: unknown } | undefined)?.v ?? 0), 'postgres');
  return applied;
}

/**
 * Brings a PostgreSQL schema up to date under a session advisory lock, so instances starting at
 * the same moment migrate one after the other and the later ones find nothing to do. Returns the
 * versions this call applied (empty when current).
 */
export async function migratePostgres(pool: MigrationPgPool, set: PostgresMigrationSet): Promise<number[]> {
  if (!IDENTIFIER_RE.test(set.schema)) throw new TypeError(`"${set.schema}" is not a plain identifier`);
  const conn = pool.connect ? await pool.connect() : null;
  const client: MigrationPgClient = conn ?? pool;
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [set.lockKey]);
    try {
      return await applyPostgres(client, set);
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [set.lockKey]);
    }
  } catch (error) {
    // Discard the connection: it may still hold the lock or an open transaction.
    broken = error instanceof Error ? error : new Error('migration failed');
    throw error;
  } finally {
    conn?.release(broken);
  }
}
