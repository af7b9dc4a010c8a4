/**
 * The admin stores' schema lives in versioned `.sql` files under `sql/<dialect>/`
 * (`001_admin_init.sql`, …). Each adapter records applied versions in `admin_schema_migrations`
 * and applies the missing ones in order, each in its own transaction, so starting twice (or two
 * instances at once) changes nothing the second time.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../errors.js';

export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

const FILE_RE = /^(\d{3})_([a-z0-9_]+)\.sql$/;

function sqlDir(dialect: 'sqlite' | 'postgres'): string {
  // Beside this module in the source tree; `npm run build` copies every .sql next to dist too.
  const dir = fileURLToPath(new URL(`./sql/${dialect}/`, import.meta.url));
  if (!existsSync(dir)) {
    throw new ConfigError('adminStore', `the ${dialect} schema files were not found in ${dir}`,
      'ship server/admin/stores/sql/ with the build (npm run build copies the .sql files next to the compiled store)');
  }
  return dir;
}

/** Splits a schema file into statements: `--` comments dropped, `;` at line end ends a statement. */
export function splitStatements(sql: string): string[] {
  const withoutComments = sql
    .split('\n')
    .map((line) => line.replace(/--.*$/, ''))
    .join('\n');
  return withoutComments
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function loadMigrations(dialect: 'sqlite' | 'postgres'): Migration[] {
  const dir = sqlDir(dialect);
  return readdirSync(dir)
    .map((file) => ({ file, match: FILE_RE.exec(file) }))
    .filter((f): f is { file: string; match: RegExpExecArray } => f.match !== null)
    .map(({ file, match }) => ({
      version: Number(match[1]),
      name: match[2] ?? file,
      statements: splitStatements(readFileSync(`${dir}${file}`, 'utf8')),
    }))
    .sort((a, b) => a.version - b.version);
}
