/**
 * Background durability of the SQLite store: the WAL is fsynced on the thread pool instead of
 * inside COMMIT, writes settle only after the fsync that covers them, a failed fsync rejects
 * the writes it covered and returns the connection to synchronous=FULL, and a database passed
 * in keeps its own setting unless asked.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { isKitError } from '../../../server/errors.js';
import { createGroupCommit } from '../../../server/orders/stores/sqlite-group-commit.js';
import { createWalSync, type SyncDone, type WalSync } from '../../../server/orders/stores/sqlite-wal-sync.js';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import type { NewOrder } from '../../../server/orders/types.js';

const dir = mkdtempSync(join(tmpdir(), 'order-store-sync-'));
let files = 0;
const nextFile = (): string => join(dir, `store-${String(++files)}.sqlite`);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const newOrder = (orderNo: string): NewOrder => ({ id: randomUUID(), orderNo, amount: 1000, currency: 'EUR', data: {} });
const synchronous = (db: Database.Database): unknown => db.pragma('synchronous', { simple: true });
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A WalSync whose fsyncs the test completes by hand. */
function manualSync(): WalSync & { pending: SyncDone[]; finish(error?: Error): void } {
  const pending: SyncDone[] = [];
  return {
    pending,
    request(done) {
      pending.push(done);
    },
    finish(error) {
      for (const done of pending.splice(0)) done(error ?? null);
    },
    flushSync() {
      this.finish();
    },
    close() {},
  };
}

function table(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
  return db;
}

/** A group commit over a fresh table with a hand-driven sync, counting its commits. */
function countedGroup(): { db: Database.Database; sync: ReturnType<typeof manualSync>; group: ReturnType<typeof createGroupCommit>; insert: (v: number) => unknown; commits: () => number } {
  const db = table(nextFile());
  const sync = manualSync();
  let commits = 0;
  const group = createGroupCommit(db, { walSync: sync, onCommit: () => commits++ });
  const statement = db.prepare('INSERT INTO t (v) VALUES (?)');
  return { db, sync, group, insert: (v) => statement.run(v), commits: () => commits };
}

describe('group commit with a background sync', () => {
  it('settles writes only after the sync that covers their commit', async () => {
    const db = table(nextFile());
    const sync = manualSync();
    const commits = createGroupCommit(db, { walSync: sync });
    let settled = 0;
    const writes = [1, 2, 3].map((v) => commits.write(() => db.prepare('INSERT INTO t (v) VALUES (?)').run(v)).then(() => settled++));
    await tick();
    // Committed (another connection reads it) but not yet acknowledged.
    const reader = new Database(db.name, { readonly: true });
    expect(reader.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 3 });
    expect(sync.pending).toHaveLength(1);
    expect(settled).toBe(0);
    sync.finish();
    await Promise.all(writes);
    expect(settled).toBe(3);
    reader.close();
    db.close();
  });

  it('holds writes that arrive while a sync runs, then commits them together', async () => {
    const { db, sync, group, insert, commits } = countedGroup();
    const count = (): unknown => db.prepare('SELECT COUNT(*) AS n FROM t').get();
    const first = group.write(() => insert(1));
    await tick();
    expect(commits()).toBe(1);
    const later = [2, 3, 4].map((v) => group.write(() => insert(v)));
    await tick();
    await tick();
    // Queued behind the running sync: not even executed yet.
    expect(commits()).toBe(1);
    expect(count()).toEqual({ n: 1 });
    sync.finish();
    await first;
    await tick();
    expect(commits()).toBe(2);
    expect(count()).toEqual({ n: 4 });
    expect(sync.pending).toHaveLength(1);
    sync.finish();
    await Promise.all(later);
    db.close();
  });

  it('commits what arrived during a sync, and asks for its sync, before that sync\'s writers hear back', async () => {
    const { db, sync, group, insert, commits } = countedGroup();
    const first = group.write(() => insert(1));
    await tick();
    const later = group.write(() => insert(2));
    await tick();
    expect(commits()).toBe(1);
    let seenByFirst: { commits: number; syncsRequested: number } | null = null;
    const firstDone = first.then(() => {
      seenByFirst = { commits: commits(), syncsRequested: sync.pending.length };
    });
    sync.finish();
    await firstDone;
    // The second commit and its fsync were under way before the first writer went on.
    expect(seenByFirst).toEqual({ commits: 2, syncsRequested: 1 });
    sync.finish();
    await later;
    db.close();
  });

  it('rejects the writes of a failed sync with ERR_STORE, reports it once, then acknowledges after COMMIT', async () => {
    const db = table(nextFile());
    const sync = manualSync();
    const failures: Error[] = [];
    const commits = createGroupCommit(db, { walSync: sync, onSyncFailed: (error) => failures.push(error) });
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const lost = commits.write(() => insert.run(1));
    await tick();
    sync.finish(new Error('EIO: i/o error, fsync'));
    const error: unknown = await lost.catch((e: unknown) => e);
    expect(isKitError(error) && error.code === 'ERR_STORE' && error.details.reason === 'fsync').toBe(true);
    expect(failures.map((e) => e.message)).toEqual(['EIO: i/o error, fsync']);
    // Later writes no longer wait for a sync.
    await expect(commits.write(() => insert.run(2))).resolves.toBeDefined();
    expect(sync.pending).toHaveLength(0);
    expect(failures).toHaveLength(1);
    db.close();
  });

  it('waits for no sync inside a transaction the caller opened', async () => {
    const db = table(nextFile());
    const sync = manualSync();
    const commits = createGroupCommit(db, { walSync: sync });
    db.exec('BEGIN');
    const write = commits.write(() => db.prepare('INSERT INTO t (v) VALUES (1)').run());
    await tick();
    await write;
    expect(sync.pending).toHaveLength(0);
    db.exec('COMMIT');
    db.close();
  });

  it('flush() commits the queue and syncs it synchronously', async () => {
    const db = table(nextFile());
    const sync = manualSync();
    const commits = createGroupCommit(db, { walSync: sync });
    const write = commits.write(() => db.prepare('INSERT INTO t (v) VALUES (1)').run());
    commits.flush();
    expect(sync.pending).toHaveLength(0);
    await expect(write).resolves.toBeDefined();
    db.close();
  });
});

describe('WAL sync on the thread pool', () => {
  it('calls back every request, each once, those made while an fsync runs included', async () => {
    const db = table(nextFile());
    db.exec('INSERT INTO t (v) VALUES (1)');
    const sync = createWalSync(`${db.name}-wal`);
    const calls: (Error | null)[] = [];
    await new Promise<void>((resolve) => {
      for (let i = 0; i < 5; i++)
        sync.request((error) => {
          calls.push(error);
          if (calls.length === 5) resolve();
        });
    });
    expect(calls).toEqual([null, null, null, null, null]);
    // A request made from a callback (the next commit's) is served by an fsync of its own.
    const chained = await new Promise<(Error | null)[]>((resolve) => {
      const seen: (Error | null)[] = [];
      sync.request((error) => {
        seen.push(error);
        sync.request((again) => {
          seen.push(again);
          resolve(seen);
        });
      });
    });
    expect(chained).toEqual([null, null]);
    sync.close();
    db.close();
  });

  it('reports a WAL file it cannot open to the waiting request', async () => {
    const sync = createWalSync(join(dir, 'missing.sqlite-wal'));
    const error = await new Promise<Error | null>((resolve) => {
      sync.request(resolve);
    });
    expect(error).toMatchObject({ code: 'ENOENT' });
    sync.close();
  });

  it('flushSync settles what is waiting; close() while an fsync runs is safe', async () => {
    const db = table(nextFile());
    db.exec('INSERT INTO t (v) VALUES (1)');
    const sync = createWalSync(`${db.name}-wal`);
    const calls: (Error | null)[] = [];
    sync.request((error) => calls.push(error));
    sync.request((error) => calls.push(error));
    sync.flushSync();
    expect(calls).toEqual([null, null]);
    sync.close();
    await tick();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toHaveLength(2);
    db.close();
  });
});

describe('SQLite store durability settings', () => {
  it('syncs in the background when it opened the file, and its writes survive reopening', async () => {
    const file = nextFile();
    const store = createSqliteStore({ path: file });
    const orders = await Promise.all(['S-1', 'S-2', 'S-3'].map((no) => store.create(newOrder(no))));
    // The store's connection is private; another one reads the file the writes reached.
    const reader = new Database(file, { readonly: true });
    expect(reader.prepare('SELECT COUNT(*) AS n FROM checkout_orders').get()).toEqual({ n: 3 });
    reader.close();
    await store.close();
    const reopened = createSqliteStore({ path: file });
    expect((await reopened.get(orders[1]!.id))?.orderNo).toBe('S-2');
    await reopened.close();
  });

  it('never leaves a commit to the WAL default: NORMAL plus its own fsync, or FULL', async () => {
    // better-sqlite3 builds SQLite with NORMAL as the WAL default, where COMMIT does not fsync.
    // (for every connection that opens a file already in WAL mode).
    const file = nextFile();
    const first = new Database(file);
    first.pragma('journal_mode = WAL');
    first.close();
    const plain = new Database(file);
    plain.prepare('SELECT 1').get();
    expect(synchronous(plain)).toBe(1);
    plain.close();

    const inline = new Database(nextFile());
    const full = createSqliteStore({ database: inline, backgroundSync: false });
    expect(synchronous(inline)).toBe(2);
    const order = await full.create(newOrder('F-1'));
    await expect(full.transition(order.id, 0, { state: 'pending' })).resolves.toMatchObject({ ok: true });
    await full.close();
    inline.close();

    const passed = new Database(nextFile());
    const background = createSqliteStore({ database: passed });
    expect(synchronous(passed)).toBe(1);
    await background.create(newOrder('B-1'));
    await background.close();
    passed.close();
  });

  it('refuses a non-boolean backgroundSync at start-up', () => {
    expect(() => createSqliteStore({ path: nextFile(), backgroundSync: 'yes' as unknown as boolean })).toThrow(/backgroundSync/);
  });
});
