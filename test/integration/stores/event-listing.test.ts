/**
 * listEvents pages on a 2,000-event order whose events were written interleaved with another
 * order's, against the whole log filtered by hand: every beforeSeq and limit around the edges,
 * and the dedupe-key lookup within bounds. SQLite always; PostgreSQL with TEST_DATABASE_URL
 * (PGlite without).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { dropSchema, openPgTarget, uniqueSchema } from './pg-target.js';

async function check(store: OrderStore): Promise<void> {
  const id = randomUUID();
  const other = randomUUID();
  await store.create({ id, orderNo: `L-${id}`, amount: 1, currency: 'EUR' });
  await store.create({ id: other, orderNo: `L-${other}`, amount: 1, currency: 'EUR' });
  let version = 0;
  for (let s = 0; s < 2000; s += 50) {
    const jobs: Promise<unknown>[] = [];
    for (let k = 0; k < 50; k++) {
      const i = s + k;
      jobs.push(store.appendEvent(id, { type: 'note', source: 'api', dedupeKey: i % 3 === 0 ? null : `k-${i}` }));
      jobs.push(store.appendEvent(other, { type: 'note', source: 'api', dedupeKey: `k-${i}` }));
    }
    await Promise.all(jobs);
    const r = await store.transition(id, version, { data: { v: version } }, { type: 'transition', source: 'api', dedupeKey: `t-${s}` });
    expect(r.ok).toBe(true);
    version++;
  }
  const all = await store.listEvents(id);
  expect(all.map((e) => e.seq)).toEqual(Array.from({ length: 2040 }, (_, i) => i + 1));
  for (const beforeSeq of [undefined, 1, 2, 3, 50, 51, 1000, 2039, 2040, 2041, 5000]) {
    for (const limit of [undefined, 1, 7, 50, 2040, 3000]) {
      const page = await store.listEvents(id, { ...(beforeSeq === undefined ? {} : { beforeSeq }), ...(limit === undefined ? {} : { limit }) });
      const below = all.filter((e) => beforeSeq === undefined || e.seq < beforeSeq);
      const want = limit === undefined ? below : below.slice(-limit);
      expect(page.map((e) => e.id)).toEqual(want.map((e) => e.id));
    }
  }
  const keyed = all.filter((e) => e.dedupeKey !== null).slice(0, 40);
  for (const e of keyed) {
    expect(await store.listEvents(id, { dedupeKey: e.dedupeKey! })).toEqual([e]);
    expect(await store.listEvents(id, { dedupeKey: e.dedupeKey!, beforeSeq: e.seq })).toEqual([]);
    expect(await store.listEvents(id, { dedupeKey: e.dedupeKey!, beforeSeq: e.seq + 1 })).toEqual([e]);
  }
}

describe('listing a 2,000-event order', () => {
  it('SQLite', { timeout: 120_000 }, async () => {
    const store = createSqliteStore({ path: ':memory:' });
    try {
      await check(store);
    } finally {
      await store.close();
    }
  });
  it('PostgreSQL', { timeout: 300_000 }, async () => {
    const target = await openPgTarget();
    const schema = uniqueSchema('hlist');
    try {
      const store = await createPostgresStore({ pool: target.pool, schema });
      await check(store);
    } finally {
      await dropSchema(target.pool, schema);
      await target.end();
    }
  });
});
