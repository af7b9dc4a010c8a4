/**
 * The admin stores' schema: versioned `.sql` files under `sql/<dialect>/` (`001_admin_init.sql`,
 * …), recorded in `admin_schema_migrations` and applied by the shared runner
 * (server/schema-migrations.ts), so starting twice (or two instances at once) changes nothing the
 * second time.
 */
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import { ConfigError } from '../../errors.js';
import * as runner from '../../schema-migrations.js';
import type { Dialect, Migration, MigrationPgPool } from '../../schema-migrations.js';

export const ADMIN_MIGRATIONS_TABLE = 'admin_schema_migrations';
const STORE = 'admin store';

export function loadMigrations(dialect: Dialect): readonly Migration[] {
  // Beside this module in the source tree; `npm run build` copies every .sql next to dist too.
  return runner.loadMigrationFiles(fileURLToPath(new URL(`./sql/${dialect}/`, import.meta.url)), (dir) => new ConfigError(
    'adminStore',
    `the ${dialect} schema files were not found in ${dir}`,
    'ship server/admin/stores/sql/ with the build (npm run build copies the .sql files next to the compiled store)',
  ));
}

export function migrateSqlite(db: BetterSqlite3.Database): number[] {
  return runner.migrateSqlite(db, { store: STORE, table: ADMIN_MIGRATIONS_TABLE, migrations: loadMigrations('sqlite') });
}

export function migratePostgres(pool: MigrationPgPool, schema: string): Promise<number[]> {
  return runner.migratePostgres(pool, {
    store: STORE,
    table: ADMIN_MIGRATIONS_TABLE,
    migrations: loadMigrations('postgres'),
    schema,
    // The key the admin store has always locked, so an instance of an earlier release waits too.
    lockKey: `admin_schema_migrations:${schema}`,
  });
}
