/**
 * Every store the kit ships (memory, a SQLite file, PostgreSQL: the server at TEST_DATABASE_URL,
 * else PGlite), for a test that must hold on each: call `kitStores(label)` at the top of the file
 * (it registers the hooks that make and remove the temporary directory and the PostgreSQL target),
 * then `describe.each(stores)(…, (_name, open) => …)`; each `open()` gives a fresh store and the
 * function that removes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { OrderStore } from '../../../server/orders/store.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import { dropSchema, openPgTarget, uniqueSchema, type PgTarget } from './pg-target.js';

export type OpenStore = () => Promise<{ store: OrderStore; done: () => Promise<void> }>;

export function kitStores(label: string): [string, OpenStore][] {
  let dir = '';
  let pgTarget: PgTarget | null = null;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `${label}-`));
    pgTarget = await openPgTarget();
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await pgTarget?.end();
  });
  return [
    ['memory', () => Promise.resolve({ store: createMemoryStore(), done: () => Promise.resolve() })],
    ['sqlite', () => {
      const store = createSqliteStore({ path: join(dir, `${String(Date.now())}-${String(Math.random()).slice(2)}.sqlite`) });
      return Promise.resolve({ store, done: () => store.close() });
    }],
    ['postgres', async () => {
      if (pgTarget === null) throw new Error('the PostgreSQL target is opened before each file\'s tests');
      const { pool } = pgTarget;
      const schema = uniqueSchema(label.replaceAll('-', ''));
      const store = await createPostgresStore({ pool, schema });
      return { store, done: () => dropSchema(pool, schema) };
    }],
  ];
}
