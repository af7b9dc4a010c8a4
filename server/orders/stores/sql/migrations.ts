/**
 * The order stores' schema: versioned `.sql` files in `sqlite/` and `postgres/` next to this
 * module, recorded in `checkout_schema_migrations`, applied by the shared runner
 * (server/schema-migrations.ts). The files are found relative to `import.meta.url`, so the same
 * code works from the source tree and from `dist/` (the build copies the `.sql` files there).
 */
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import { KitError } from '../../../errors.js';
import type { Logger } from '../../../logging.js';
import * as runner from '../../../schema-migrations.js';
import type { Dialect, Migration, MigrationPgPool } from '../../../schema-migrations.js';

export type { Dialect, Migration } from '../../../schema-migrations.js';

/** The version table, in both dialects. */
export const ORDER_MIGRATIONS_TABLE = 'checkout_schema_migrations';
const STORE = 'order store';

export function migrationsDir(dialect: Dialect): string {
  return fileURLToPath(new URL(`./${dialect}/`, import.meta.url));
}

/** All migrations of a dialect, ascending by version. Read once per process. */
export function loadMigrations(dialect: Dialect): readonly Migration[] {
  return runner.loadMigrationFiles(migrationsDir(dialect), (dir, cause) => new KitError(
    'ERR_STORE',
    `The ${dialect} schema files are missing from ${dir}. When running from dist/, build with "npm run build", which copies them.`,
    { cause, details: { dialect, dir } },
  ));
}

/** Brings a SQLite order database up to date. Returns the versions applied (empty when current). */
export function migrateSqlite(db: BetterSqlite3.Database, logger: Logger): number[] {
  return runner.migrateSqlite(db, { store: STORE, table: ORDER_MIGRATIONS_TABLE, migrations: loadMigrations('sqlite'), logger });
}

/** Brings `schema` up to date. Returns the versions this call applied (empty when current). */
export function migratePostgres(pool: MigrationPgPool, schema: string, logger: Logger): Promise<number[]> {
  return runner.migratePostgres(pool, {
    store: STORE,
    table: ORDER_MIGRATIONS_TABLE,
    migrations: loadMigrations('postgres'),
    logger,
    schema,
    lockKey: `acquiring-checkout-kit:order-store:${schema}`,
  });
}
