/**
 * Applies the SQLite schema files once each, in order, each in its own IMMEDIATE transaction
 * that re-checks `checkout_schema_migrations` after taking the write lock, so two processes
 * opening the same file at once never apply a migration twice.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Logger } from '../../logging.js';
import { loadMigrations } from './sql/migrations.js';

export const SQLITE_MIGRATIONS_TABLE = 'checkout_schema_migrations';

/** Returns the versions applied by this call (empty when the schema was already current). */
export function migrateSqlite(db: BetterSqlite3.Database, logger: Logger): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS ${SQLITE_MIGRATIONS_TABLE} (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at INTEGER NOT NULL
  ) STRICT`);
  const isApplied = db.prepare<[number], { version: number }>(`SELECT version FROM ${SQLITE_MIGRATIONS_TABLE} WHERE version = ?`);
  const record = db.prepare<[number, string, number]>(`INSERT INTO ${SQLITE_MIGRATIONS_TABLE} (version, name, applied_at) VALUES (?, ?, ?)`);
  const newest = db.prepare<[], { v: number | null }>(`SELECT MAX(version) AS v FROM ${SQLITE_MIGRATIONS_TABLE}`);

  const migrations = loadMigrations('sqlite');
  const applied: number[] = [];
  for (const migration of migrations) {
    const apply = db.transaction(() => {
      if (isApplied.get(migration.version)) return;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
      applied.push(migration.version);
      logger.info({ store: 'sqlite', migration: migration.version, name: migration.name }, 'applied order store migration');
    });
    apply.immediate();
  }
  const known = migrations[migrations.length - 1]?.version ?? 0;
  const stored = newest.get()?.v ?? 0;
  if (stored > known) {
    logger.warn({ store: 'sqlite', stored, known }, 'the order database was migrated by a newer version of the kit');
  }
  return applied;
}
