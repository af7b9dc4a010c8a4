/**
 * The revisit round's window at the top of its range on every kit store: 100 years back is a date
 * each store reads; a longer window (before the earliest instant a Date holds, ±8.64e15 ms, the
 * round would be silently off on one store and failing on another) is refused at start-up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { GatewayPort } from '../../../server/orders/engine-types.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import { ConfigError } from '../../../server/errors.js';
import { REVISIT_WITHIN_MAX_MS, createSweeper } from '../../../server/orders/sweeper.js';
import { makeOrder } from '../orders/fixtures.js';
import { dropSchema, openPgTarget, uniqueSchema, type PgTarget } from '../stores/pg-target.js';

let dir: string;
let pgTarget: PgTarget;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'revisit-config-'));
  pgTarget = await openPgTarget();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await pgTarget.end();
});

const stores: [string, () => Promise<{ store: OrderStore; done: () => Promise<void> }>][] = [
  ['memory', () => Promise.resolve({ store: createMemoryStore(), done: () => Promise.resolve() })],
  ['sqlite', () => {
    const store = createSqliteStore({ path: join(dir, `${String(Date.now())}-${String(Math.random()).slice(2)}.sqlite`) });
    return Promise.resolve({ store, done: () => store.close() });
  }],
  ['postgres', async () => {
    const schema = uniqueSchema('revisitcfg');
    const store = await createPostgresStore({ pool: pgTarget.pool, schema });
    return { store, done: () => dropSchema(pgTarget.pool, schema) };
  }],
];

describe.each(stores)('revisitWithinMs at the top of its range (%s)', (_name, open) => {
  it('100 years back: an old paid order is still asked about; a longer window is refused', async () => {
    const { store, done } = await open();
    try {
      const engine = createReconcileEngine({ store });
      const order = await makeOrder(store, { amount: 1_000, state: 'paid', createdAt: new Date(Date.now() - 50 * 365 * 24 * 3_600_000) });
      const asked: string[] = [];
      const gateway: GatewayPort = {
        queryOrders: (nos) => {
          asked.push(...nos);
          return Promise.resolve(new Map());
        },
      };
      const sweeper = createSweeper({ engine, store, gateway, stuckAfterMs: 1, revisitWithinMs: REVISIT_WITHIN_MAX_MS });
      const report = await sweeper.runOnce();
      expect(report.errors).toBe(0);
      expect(asked).toEqual([order.orderNo]);
      expect(report.revisits).toMatchObject({ checked: 1, unknown: 1 });
      expect(() => createSweeper({ engine, store, gateway, revisitWithinMs: Number.MAX_SAFE_INTEGER })).toThrow(ConfigError);
    } finally {
      await done();
    }
  });
});
