/**
 * Versioned schema migrations shipped as `.sql` files in `sqlite/` and `postgres/` next to this
 * module. They are found relative to `import.meta.url`, so the same code works from the source
 * tree and from `dist/` (the build copies the `.sql` files there).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KitError } from '../../../errors.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Migration {
  /** From the file name `NNN_name.sql`. */
  version: number;
  name: string;
  sql: string;
}

const FILE_RE = /^(\d{3,})_([a-z0-9_]+)\.sql$/;
const cache = new Map<Dialect, readonly Migration[]>();

export function migrationsDir(dialect: Dialect): string {
  return fileURLToPath(new URL(`./${dialect}/`, import.meta.url));
}

/** All migrations of a dialect, ascending by version. Read once per process. */
export function loadMigrations(dialect: Dialect): readonly Migration[] {
  const cached = cache.get(dialect);
  if (cached) return cached;
  const dir = migrationsDir(dialect);
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch (cause) {
    throw new KitError(
      'ERR_STORE',
      `The ${dialect} schema files are missing from ${dir}. When running from dist/, build with "npm run build", which copies them.`,
      { cause, details: { dialect, dir } },
    );
  }
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = FILE_RE.exec(file);
    if (!match?.[1] || !match[2]) continue;
    migrations.push({ version: Number(match[1]), name: match[2], sql: readFileSync(join(dir, file), 'utf8') });
  }
  migrations.sort((a, b) => a.version - b.version);
  if (migrations.length === 0) {
    throw new KitError('ERR_STORE', `No ${dialect} schema files found in ${dir}`, { details: { dialect, dir } });
  }
  migrations.forEach((m, i) => {
    if (i > 0 && migrations[i - 1]?.version === m.version) {
      throw new KitError('ERR_STORE', `Two ${dialect} migrations share version ${m.version}`, { details: { dialect } });
    }
  });
  cache.set(dialect, migrations);
  return migrations;
}
