/**
 * How the SQLite store commits: concurrent writes share one transaction (group commit) without
 * sharing their failures, nothing resolves before it is committed, and the WAL is checkpointed
 * by the background thread instead of inside a write.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { isKitError } from '../../../server/errors.js';
import { BACKSTOP_PAGES } from '../../../server/orders/stores/sqlite-checkpointer.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import type { NewOrder } from '../../../server/orders/types.js';

const dir = mkdtempSync(join(tmpdir(), 'order-store-commits-'));
let files = 0;
const nextFile = (): string => join(dir, `store-${String(++files)}.sqlite`);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const newOrder = (orderNo: string, data: Record<string, unknown> = {}): NewOrder => ({
  id: randomUUID(),
  orderNo,
  amount: 1000,
  currency: 'EUR',
  data,
});

/** Opens `file` with a statement log, and a store over it. */
function traced(file: string) {
  const statements: string[] = [];
  const db = new Database(file, { verbose: (sql) => statements.push(String(sql).trim().split(/\s+/)[0] ?? '') });
  const store = createSqliteStore({ database: db });
  return { db, store, statements };
}

describe('SQLite group commit', () => {
  it('commits the writes of one event-loop turn in one transaction', async () => {
    const { db, store, statements } = traced(nextFile());
    const orders = await Promise.all(Array.from({ length: 20 }, (_v, i) => store.create(newOrder(`G-${String(i)}`))));
    statements.length = 0;
    const moved = await Promise.all(
      orders.map((o) => store.transition(o.id, o.version, { state: 'pending' }, { type: 'transition', source: 'pay', fromState: 'created', toState: 'pending', dedupeKey: 'k' })),
    );
    expect(moved.every((r) => r.ok)).toBe(true);
    expect(statements.filter((s) => s === 'COMMIT')).toHaveLength(1);
    expect(statements.filter((s) => s === 'SAVEPOINT')).toHaveLength(20);
    await store.close();
    db.close();
  });

  it('rolls back only the write that failed; the others in its transaction are stored', async () => {
    const { db, store } = traced(nextFile());
    await store.create(newOrder('TAKEN'));
    const results = await Promise.allSettled([store.create(newOrder('A')), store.create(newOrder('TAKEN')), store.create(newOrder('B'))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const failure = (results[1] as PromiseRejectedResult).reason as unknown;
    expect(isKitError(failure) && failure.code).toBe('ERR_ORDER_EXISTS');
    const stored = db.prepare('SELECT order_no FROM checkout_orders ORDER BY order_no').all() as { order_no: string }[];
    expect(stored.map((r) => r.order_no)).toEqual(['A', 'B', 'TAKEN']);
    await store.close();
    db.close();
  });

  it('resolves a write only once another connection can read it', async () => {
    const file = nextFile();
    const store = createSqliteStore({ path: file });
    const other = new Database(file, { readonly: true });
    const seen = await store.create(newOrder('VISIBLE')).then((order) => other.prepare('SELECT id FROM checkout_orders WHERE id = ?').get(order.id));
    expect(seen).toBeDefined();
    other.close();
    await store.close();
  });

  it('nests in a transaction the caller opened, which decides whether the writes stay', async () => {
    const { db, store } = traced(nextFile());
    db.exec('BEGIN');
    await store.create(newOrder('INSIDE'));
    db.exec('ROLLBACK');
    expect(await store.getByOrderNo('INSIDE')).toBeNull();
    await store.close();
    db.close();
  });

  it('commits what is still queued when the store closes', async () => {
    const file = nextFile();
    const store = createSqliteStore({ path: file });
    const pending = store.create(newOrder('LAST'));
    await store.close();
    await expect(pending).resolves.toMatchObject({ orderNo: 'LAST' });
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM checkout_orders').get()).toEqual({ n: 1 });
    db.close();
  });
});

describe('SQLite background checkpoints', () => {
  /** 100 commits of one order each: a few hundred WAL frames, under any auto-checkpoint threshold. */
  async function writeMany(store: ReturnType<typeof createSqliteStore>): Promise<void> {
    const filler = 'x'.repeat(1000);
    for (let i = 0; i < 100; i++) await store.create(newOrder(`W-${String(i)}`, { filler }));
  }

  async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
    for (const until = Date.now() + ms; Date.now() < until; ) {
      if (check()) return true;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return check();
  }

  it('copies the WAL into the database file from another thread, not in the writes', async () => {
    const file = nextFile();
    const store = createSqliteStore({ path: file });
    const probe = new Database(file, { readonly: true });
    expect(probe.pragma('page_size', { simple: true })).toBe(4096);
    const before = statSync(file).size;
    // Fewer pages than any auto-checkpoint threshold: only the background thread can have copied them.
    await writeMany(store);
    expect(await waitFor(() => statSync(file).size > before + 20 * 4096, 5000)).toBe(true);
    probe.close();
    await store.close();
  });

  it('raises the store connection\'s own auto-checkpoint to a backstop, and leaves it alone when turned off', async () => {
    const on = traced(nextFile());
    expect(on.db.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_PAGES);
    await on.store.close();
    on.db.close();

    const file = nextFile();
    const db = new Database(file);
    const store = createSqliteStore({ database: db, backgroundCheckpoints: false });
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    const before = statSync(file).size;
    await writeMany(store);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Under SQLite's own 1000-page threshold nothing was copied yet.
    expect(statSync(file).size).toBe(before);
    await store.close();
    db.close();
  });

  it('refuses a non-boolean backgroundCheckpoints at start-up', () => {
    expect(() => createSqliteStore({ path: nextFile(), backgroundCheckpoints: 'yes' as unknown as boolean })).toThrow(/backgroundCheckpoints/);
  });
});
