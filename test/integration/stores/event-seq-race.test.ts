/**
 * An order's event numbers under every writer at once. The order row's last_event_seq, bumped in
 * the same transaction (SQLite) or under the same row lock (PostgreSQL) as each insert, numbers
 * the events; one order is hammered through every path that writes an event (appendEvent with
 * and without a key, a key two writers race for, transitions with and without the caller's copy,
 * with outbox entries, with refund rows, and patch-only transitions) and the log must read back
 * exactly 1..n, as last_event_seq says, in pages as whole. A duplicate number would fail its
 * insert on the (order_id, seq) index and the writer with it.
 * SQLite: two store instances on one file, then two worker processes and this one.
 * PostgreSQL: two pools (needs TEST_DATABASE_URL).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { hammer } from './event-seq-hammer.js';
import { TEST_DATABASE_URL, dropSchema, serverPool, uniqueSchema } from './pg-target.js';

const dir = mkdtempSync(join(tmpdir(), 'event-seq-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

async function checkLog(store: OrderStore, id: string, told: number[], lastEventSeq: number): Promise<void> {
  const events = await store.listEvents(id);
  const seqs = events.map((e) => e.seq);
  const n = seqs.length;
  expect(new Set(seqs).size).toBe(n);
  expect(seqs).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  expect([...told].sort((x, y) => x - y)).toEqual(seqs);
  expect(lastEventSeq).toBe(n);
  // Pages of 7 walked backwards give the same log.
  const paged: number[] = [];
  let before: number | undefined;
  for (;;) {
    const page = await store.listEvents(id, { ...(before === undefined ? {} : { beforeSeq: before }), limit: 7 });
    if (page.length === 0) break;
    expect(page.map((e) => e.seq)).toEqual([...page.map((e) => e.seq)].sort((x, y) => x - y));
    paged.unshift(...page.map((e) => e.seq));
    before = page[0]!.seq;
  }
  expect(paged).toEqual(seqs);
}

const OPS = Number(process.env.EVENT_SEQ_OPS ?? 240);

describe('event numbers under concurrent writers', () => {
  it('SQLite: two store instances on one file', { timeout: 300_000 }, async () => {
    const path = join(dir, 'two.sqlite');
    const a = createSqliteStore({ path, busyTimeoutMs: 60_000 });
    const b = createSqliteStore({ path, busyTimeoutMs: 60_000 });
    try {
      const id = randomUUID();
      await a.create({ id, orderNo: `h-${id}`, amount: 1_000_000, currency: 'EUR' });
      const told = (await Promise.all([
        ...Array.from({ length: 4 }, (_, w) => hammer(a, id, `a${w}`, OPS / 4)),
        ...Array.from({ length: 4 }, (_, w) => hammer(b, id, `b${w}`, OPS / 4)),
      ])).flat();
      const db = new Database(path, { readonly: true });
      const last = (db.prepare('SELECT last_event_seq AS s FROM checkout_orders WHERE id = ?').get(id) as { s: number }).s;
      const dup = db.prepare('SELECT order_id, seq, COUNT(*) c FROM checkout_order_events GROUP BY order_id, seq HAVING c > 1').all();
      db.close();
      expect(dup).toEqual([]);
      await checkLog(a, id, told, last);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('SQLite: two processes (plus this one) on one file', { timeout: 300_000 }, async () => {
    const path = join(dir, 'procs.sqlite');
    const a = createSqliteStore({ path, busyTimeoutMs: 60_000 });
    try {
      const id = randomUUID();
      await a.create({ id, orderNo: `h-${id}`, amount: 1_000_000, currency: 'EUR' });
      const worker = fileURLToPath(new URL('./event-seq-worker.ts', import.meta.url));
      const run = (tag: string): Promise<number[]> => new Promise((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', worker, path, id, tag, String(OPS / 4)], { cwd: process.cwd() });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.on('exit', (code) => {
          if (code === 0) resolve(JSON.parse(out.trim().split('\n').pop() ?? '[]') as number[]);
          else reject(new Error(`worker ${tag}: ${String(code)} ${err}`));
        });
      });
      const told = (await Promise.all([run('p'), run('q'), hammer(a, id, 'main0', OPS / 4), hammer(a, id, 'main1', OPS / 4)])).flat();
      const db = new Database(path, { readonly: true });
      const last = (db.prepare('SELECT last_event_seq AS s FROM checkout_orders WHERE id = ?').get(id) as { s: number }).s;
      db.close();
      await checkLog(a, id, told, last);
    } finally {
      await a.close();
    }
  });

  describe.skipIf(!TEST_DATABASE_URL)('PostgreSQL', () => {
    it('two pools, one order', { timeout: 300_000 }, async () => {
      const schema = uniqueSchema('eventseq');
      const pools: pg.Pool[] = [serverPool(8), serverPool(8)];
      try {
        const [a, b] = await Promise.all(pools.map((pool) => createPostgresStore({ pool, schema })));
        const id = randomUUID();
        await a!.create({ id, orderNo: `h-${id}`, amount: 1_000_000, currency: 'EUR' });
        const told = (await Promise.all([
          ...Array.from({ length: 6 }, (_, w) => hammer(a!, id, `a${w}`, OPS / 4)),
          ...Array.from({ length: 6 }, (_, w) => hammer(b!, id, `b${w}`, OPS / 4)),
        ])).flat();
        const { rows } = await pools[0]!.query(`SELECT last_event_seq AS s FROM "${schema}".checkout_orders WHERE id = $1`, [id]);
        const dup = await pools[0]!.query(`SELECT seq, count(*) FROM "${schema}".checkout_order_events GROUP BY order_id, seq HAVING count(*) > 1`);
        expect(dup.rows).toEqual([]);
        await checkLog(a!, id, told, Number((rows[0] as { s: string }).s));
      } finally {
        await dropSchema(pools[0]!, schema);
        for (const p of pools) await p.end();
      }
    });
  });
});
