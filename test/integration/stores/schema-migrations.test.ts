/**
 * The shared migration runner on databases set up by the stores' earlier, separate runners: the
 * version tables are created by hand in their old layouts (the order store's STRICT table, the
 * admin store's plain one; on PostgreSQL the admin's applied_at without a default) with the first
 * migration applied, and the runner must accept them and apply only the newer migrations.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as admin from '../../../server/admin/stores/migrations.js';
import { createSqliteAdminStore } from '../../../server/admin/stores/sqlite.js';
import type { Logger } from '../../../server/logging.js';
import * as orders from '../../../server/orders/stores/sql/migrations.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import { loadMigrationFiles, migrateSqlite, splitStatements } from '../../../server/schema-migrations.js';
import { dropSchema, openPgTarget, uniqueSchema, type PgTarget } from './pg-target.js';

const dir = mkdtempSync(join(tmpdir(), 'schema-migrations-'));
let target: Promise<PgTarget> | undefined;
const open = (): Promise<PgTarget> => (target ??= openPgTarget());
const schemas: string[] = [];

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (!target) return;
  const opened = await target;
  for (const schema of schemas) await dropSchema(opened.pool, schema);
  await opened.end();
});

const versions = (list: readonly { version: number }[]): number[] => list.map((m) => m.version);
const newerThanFirst = (list: readonly { version: number }[]): number[] => versions(list).filter((v) => v > 1);

function recordingLogger(): Logger & { lines: { level: string; msg: string; fields: object }[] } {
  const lines: { level: string; msg: string; fields: object }[] = [];
  const at = (level: string) => (fields: object, msg?: string) => {
    lines.push({ level, msg: msg ?? '', fields });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('schema migrations: SQLite databases from earlier releases', () => {
  it('the order store accepts the old checkout_schema_migrations table and applies only the newer files', () => {
    const path = join(dir, 'orders-old.db');
    const db = new Database(path);
    db.exec('CREATE TABLE checkout_schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT');
    const [first] = orders.loadMigrations('sqlite');
    db.exec(first!.sql);
    db.prepare('INSERT INTO checkout_schema_migrations VALUES (1, ?, ?)').run(first!.name, 1_700_000_000_000);
    const logger = recordingLogger();

    expect(orders.migrateSqlite(db, logger)).toEqual(newerThanFirst(orders.loadMigrations('sqlite')));
    const rows = db.prepare('SELECT version, name, applied_at FROM checkout_schema_migrations ORDER BY version').all() as { version: number; name: string; applied_at: number }[];
    expect(rows.map((r) => r.version)).toEqual(versions(orders.loadMigrations('sqlite')));
    // The old row is kept as it was.
    expect(rows[0]).toEqual({ version: 1, name: first!.name, applied_at: 1_700_000_000_000 });
    expect(logger.lines.filter((l) => l.msg === 'applied order store migration').map((l) => (l.fields as { migration: number }).migration)).toEqual(newerThanFirst(orders.loadMigrations('sqlite')));
    expect(orders.migrateSqlite(db, logger)).toEqual([]);
    db.close();
    // And the store opens on it.
    createSqliteStore({ path }).close();
  });

  it('the admin store accepts its old (non-STRICT) admin_schema_migrations table and applies only the newer files', () => {
    const db = new Database(join(dir, 'admin-old.db'));
    db.exec('CREATE TABLE admin_schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    const [first] = admin.loadMigrations('sqlite');
    // The old runner applied a file statement by statement.
    for (const statement of splitStatements(first!.sql)) db.exec(statement);
    db.prepare('INSERT INTO admin_schema_migrations VALUES (1, ?, ?)').run(first!.name, 1_700_000_000_000);

    expect(admin.migrateSqlite(db)).toEqual(newerThanFirst(admin.loadMigrations('sqlite')));
    expect((db.prepare('SELECT version FROM admin_schema_migrations ORDER BY version').all() as { version: number }[]).map((r) => r.version))
      .toEqual(versions(admin.loadMigrations('sqlite')));
    // The store opens on it without applying anything again.
    createSqliteAdminStore({ database: db });
    expect(db.prepare('SELECT COUNT(*) AS n FROM admin_schema_migrations').get()).toEqual({ n: admin.loadMigrations('sqlite').length });
    db.close();
  });

  it('applies files in version order, each once, and warns when the database knows a newer version than the kit', () => {
    const files = join(dir, 'files');
    mkdirSync(files);
    writeFileSync(join(files, '002_second.sql'), 'ALTER TABLE t ADD COLUMN b TEXT;');
    writeFileSync(join(files, '001_first.sql'), '-- a comment; with a semicolon\nCREATE TABLE t (a INTEGER);\nINSERT INTO t (a) VALUES (1);');
    writeFileSync(join(files, 'notes.txt'), 'not a migration');
    const migrations = loadMigrationFiles(files, () => new Error('missing'));
    expect(migrations.map((m) => [m.version, m.name])).toEqual([[1, 'first'], [2, 'second']]);
    const db = new Database(':memory:');
    const logger = recordingLogger();
    expect(migrateSqlite(db, { store: 'test store', table: 'test_versions', migrations, logger })).toEqual([1, 2]);
    expect(db.prepare('SELECT a, b FROM t').all()).toEqual([{ a: 1, b: null }]);
    db.prepare('INSERT INTO test_versions VALUES (9, ?, ?)').run('from_the_future', Date.now());
    expect(migrateSqlite(db, { store: 'test store', table: 'test_versions', migrations, logger })).toEqual([]);
    expect(logger.lines.filter((l) => l.level === 'warn').map((l) => [l.msg, l.fields])).toEqual([
      ['the test store database was migrated by a newer version of the kit', { store: 'sqlite', stored: 9, known: 2 }],
    ]);
    expect(() => loadMigrationFiles(join(dir, 'nowhere'), () => new Error('the files are missing'))).toThrow('the files are missing');
    db.close();
  });
});

describe('schema migrations: PostgreSQL schemas from earlier releases', () => {
  // Starting an in-process PostgreSQL takes seconds: do it under the hook timeout, not a test's.
  beforeAll(async () => {
    await open();
  });

  it('the order store accepts the old checkout_schema_migrations table and applies only the newer files', async () => {
    const { pool } = await open();
    const schema = uniqueSchema('orders_old');
    schemas.push(schema);
    const [first] = orders.loadMigrations('postgres');
    await pool.query(`CREATE SCHEMA "${schema}"`);
    await pool.query(`CREATE TABLE "${schema}".checkout_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    await pool.query(`SET search_path TO "${schema}"; ${first!.sql}; SET search_path TO public`);
    await pool.query(`INSERT INTO "${schema}".checkout_schema_migrations (version, name) VALUES (1, $1)`, [first!.name]);

    const logger = recordingLogger();
    expect(await orders.migratePostgres(pool, schema, logger)).toEqual(newerThanFirst(orders.loadMigrations('postgres')));
    const { rows } = await pool.query(`SELECT version FROM "${schema}".checkout_schema_migrations ORDER BY version`, []);
    expect(rows.map((r) => Number(r.version))).toEqual(versions(orders.loadMigrations('postgres')));
    expect(await orders.migratePostgres(pool, schema, logger)).toEqual([]);
  });

  it('the admin store accepts its old admin_schema_migrations table (applied_at without a default) and applies only the newer files', async () => {
    const { pool } = await open();
    const schema = uniqueSchema('admin_old');
    schemas.push(schema);
    const [first] = admin.loadMigrations('postgres');
    await pool.query(`CREATE SCHEMA "${schema}"`);
    await pool.query(`CREATE TABLE "${schema}".admin_schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`);
    await pool.query(`SET search_path TO "${schema}"; ${first!.sql}; SET search_path TO public`);
    await pool.query(`INSERT INTO "${schema}".admin_schema_migrations (version, name, applied_at) VALUES (1, $1, now())`, [first!.name]);

    expect(await admin.migratePostgres(pool, schema)).toEqual(newerThanFirst(admin.loadMigrations('postgres')));
    const { rows } = await pool.query(`SELECT version FROM "${schema}".admin_schema_migrations ORDER BY version`, []);
    expect(rows.map((r) => Number(r.version))).toEqual(versions(admin.loadMigrations('postgres')));
    expect(await admin.migratePostgres(pool, schema)).toEqual([]);
  });
});
