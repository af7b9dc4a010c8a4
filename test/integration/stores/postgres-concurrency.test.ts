/**
 * Several shop instances on one PostgreSQL database: two pools stand for two processes. These
 * need a real server (PGlite has a single connection), so they are skipped without one.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import type { PostgresOrderStore } from '../../../server/orders/stores/postgres.js';
import type { Order } from '../../../server/orders/types.js';
import { TEST_DATABASE_URL, dropSchema, serverPool, uniqueSchema } from './pg-target.js';

if (!TEST_DATABASE_URL) {
  console.warn(
    '\n**********************************************************************\n' +
      '  SKIPPED: PostgreSQL multi-instance tests. Set TEST_DATABASE_URL\n' +
      '  (e.g. postgres://postgres@127.0.0.1:5432/test) to run them.\n' +
      '**********************************************************************\n',
  );
}

describe.skipIf(!TEST_DATABASE_URL)('PostgreSQL store: two instances', () => {
  const schema = uniqueSchema('multi');
  let pools: pg.Pool[] = [];
  let a: PostgresOrderStore;
  let b: PostgresOrderStore;

  beforeAll(async () => {
    pools = [serverPool(10), serverPool(10)];
    // Both instances start (and migrate) at once, as after a deploy.
    const stores = await Promise.all(pools.map((pool) => createPostgresStore({ pool, schema })));
    if (!stores[0] || !stores[1]) throw new Error('an instance did not start');
    [a, b] = [stores[0], stores[1]];
  });

  afterAll(async () => {
    if (pools[0]) await dropSchema(pools[0], schema);
    for (const pool of pools) await pool.end();
  });

  const newOrder = (state: Order['state'] = 'created') => ({ id: randomUUID(), orderNo: `multi-${randomUUID()}`, amount: 500, currency: 'EUR', state });

  it('lets exactly one of 50 concurrent transitions from one version win', async () => {
    const order = await a.create(newOrder());
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? a : b).transition(order.id, 0, { state: 'pending', data: { winner: i } }, { type: 'transition', source: 'api', actor: `racer-${i}` }),
      ),
    );
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    for (const lost of results.filter((r) => !r.ok)) expect(lost).toMatchObject({ ok: false, current: { version: 1 } });
    const stored = await b.get(order.id);
    expect(stored?.version).toBe(1);
    const events = await a.listEvents(order.id);
    expect(events).toHaveLength(1);
    expect(events[0]?.actor).toBe(`racer-${String(stored?.data.winner)}`);
  });

  it('stores a notification once when both instances receive it at the same time', async () => {
    const order = await a.create(newOrder());
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).appendEvent(order.id, { type: 'notification', source: 'notify', dedupeKey: 'gw-1' })),
    );
    expect(results.filter((r) => r.appended)).toHaveLength(1);
    expect(await b.listEvents(order.id)).toHaveLength(1);
  });

  it('gives a lease to one instance only', async () => {
    const order = await a.create(newOrder());
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).acquireLease(order.id, `owner-${i}`, 60_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('lets two sweepers settle 1,000 due orders, each exactly once', { timeout: 300_000 }, async () => {
    const ids: string[] = [];
    for (let i = 0; i < 1000; i += 50) {
      const batch = Array.from({ length: 50 }, () => newOrder('requires_action'));
      await Promise.all(batch.map((o) => a.create(o)));
      ids.push(...batch.map((o) => o.id));
    }
    const updatedBefore = new Date(Date.now() + 3_600_000);

    async function sweep(store: PostgresOrderStore, owner: string): Promise<{ claimed: string[]; settled: number; refused: number }> {
      const claimed: string[] = [];
      let settled = 0;
      let refused = 0;
      for (;;) {
        const batch = await store.claimDue({ states: ['requires_action'], updatedBefore, limit: 25, owner, leaseMs: 600_000 });
        if (batch.length === 0) return { claimed, settled, refused };
        claimed.push(...batch.map((o) => o.id));
        const results = await Promise.all(
          batch.map((o) =>
            store.transition(o.id, o.version, { state: 'paid', capturedAmount: o.amount }, {
              type: 'transition',
              source: 'sweeper',
              actor: owner,
              fromState: 'requires_action',
              toState: 'paid',
              dedupeKey: 'settle',
            }),
          ),
        );
        settled += results.filter((r) => r.ok).length;
        refused += results.filter((r) => !r.ok).length;
      }
    }

    const [one, two] = await Promise.all([sweep(a, 'sweeper-1'), sweep(b, 'sweeper-2')]);
    // Both instances took part, and no order went to both.
    expect(one.claimed.length).toBeGreaterThan(0);
    expect(two.claimed.length).toBeGreaterThan(0);
    expect(one.claimed.filter((id) => two.claimed.includes(id))).toEqual([]);
    expect([...one.claimed, ...two.claimed].sort()).toEqual([...ids].sort());
    expect(one.settled + two.settled).toBe(1000);
    expect(one.refused + two.refused).toBe(0);

    const pool = pools[0];
    if (!pool) throw new Error('pool missing');
    const { rows: states } = await pool.query<{ state: string; version: number; n: number }>(
      `SELECT state, version, COUNT(*)::int AS n FROM "${schema}".checkout_orders WHERE id = ANY($1::text[]) GROUP BY state, version`,
      [ids],
    );
    expect(states).toEqual([{ state: 'paid', version: 1, n: 1000 }]);
    const { rows: events } = await pool.query<{ n: number; orders: number }>(
      `SELECT COUNT(*)::int AS n, COUNT(DISTINCT order_id)::int AS orders FROM "${schema}".checkout_order_events WHERE order_id = ANY($1::text[])`,
      [ids],
    );
    expect(events).toEqual([{ n: 1000, orders: 1000 }]);
  });
});
