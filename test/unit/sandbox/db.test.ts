import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { Collection, openDatabase, WAL_CHECKPOINT_PAGES } from '../../../server/sandbox/db.js';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-db-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Doc {
  id: string;
  account: string;
  order: string;
  n: number;
}

const keys = (d: Doc): [string, string] => [d.account, d.order];
/** Rows committed, as another connection sees them. */
const countRows = (db: Database.Database): number => (db.prepare('SELECT COUNT(*) AS n FROM transactions').get() as { n: number }).n;

/** The table layout files had before seq became the rowid. */
function writeOldLayout(path: string, docs: Doc[]): void {
  const db = new Database(path);
  db.exec(`CREATE TABLE transactions (id TEXT PRIMARY KEY, k1 TEXT NOT NULL DEFAULT '', k2 TEXT NOT NULL DEFAULT '', seq INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE INDEX transactions_keys ON transactions (k1, k2);
    CREATE INDEX transactions_seq ON transactions (seq);`);
  const insert = db.prepare('INSERT INTO transactions (id, k1, k2, seq, data) VALUES (?, ?, ?, ?, ?)');
  docs.forEach((d, i) => insert.run(d.id, d.account, d.order, i + 1, JSON.stringify(d)));
  db.close();
}

function exercise(path: string): void {
  const database = openDatabase(path);
  try {
    const docs = new Collection<Doc>(database.db, 'transactions', keys);
    docs.put('T3', { id: 'T3', account: 'A', order: 'O3', n: 3 });
    docs.put('T4', { id: 'T4', account: 'B', order: 'O4', n: 4 });
    // Rewritten in place: keeps its position; a changed key moves it in the index, not in order.
    docs.rewrite('T1', { id: 'T1', account: 'A', order: 'O1', n: 10 });
    docs.rewrite('T2', { id: 'T2', account: 'A', order: 'O2-moved', n: 20 });
    docs.put('T3', { id: 'T3', account: 'A', order: 'O3', n: 30 });
    expect(docs.all().map((d) => [d.id, d.n])).toEqual([['T1', 10], ['T2', 20], ['T3', 30], ['T4', 4]]);
    expect(docs.get('T2')?.order).toBe('O2-moved');
    expect(docs.find('A', 'O2')).toEqual([]);
    expect(docs.find('A').map((d) => d.id)).toEqual(['T1', 'T2', 'T3']);
    expect(docs.findAny('A', ['O3', 'O2-moved'], ['T1', 'T4']).map((d) => d.id)).toEqual(['T1', 'T2', 'T3']);
    expect(docs.findAny('A', ['O3'], []).map((d) => d.id)).toEqual(['T3']);
    expect(docs.last('A', 2).map((d) => d.id)).toEqual(['T2', 'T3']);
  } finally {
    database.close();
  }
}

describe('sandbox ledger tables', () => {
  it('keep order, lookups and rewrites in a new file', () => {
    const path = join(dir, 'new.sqlite');
    const database = openDatabase(path);
    const docs = new Collection<Doc>(database.db, 'transactions', keys);
    docs.put('T1', { id: 'T1', account: 'A', order: 'O1', n: 1 });
    docs.put('T2', { id: 'T2', account: 'A', order: 'O2', n: 2 });
    database.close();
    exercise(path);
  });

  it('checkpoint a file ledger less often than SQLite would, still with a bound', () => {
    const database = openDatabase(join(dir, 'pragmas.sqlite'));
    try {
      expect(database.db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(database.db.pragma('wal_autocheckpoint', { simple: true })).toBe(WAL_CHECKPOINT_PAGES);
    } finally {
      database.close();
    }
  });

  it('keep working on a file written with the earlier layout (id primary key, seq index)', () => {
    const path = join(dir, 'old.sqlite');
    writeOldLayout(path, [{ id: 'T1', account: 'A', order: 'O1', n: 1 }, { id: 'T2', account: 'A', order: 'O2', n: 2 }]);
    exercise(path);
  });

  it('share one commit among the durably calls of a turn, each answered only once it is committed', async () => {
    const path = join(dir, 'group.sqlite');
    const database = openDatabase(path);
    const other = new Database(path, { readonly: true });
    try {
      const docs = new Collection<Doc>(database.db, 'transactions', keys, database.settle);
      const visible = (): string[] => (other.prepare('SELECT id FROM transactions ORDER BY seq').all() as { id: string }[]).map((r) => r.id);
      const one = database.durably(() => {
        docs.put('T1', { id: 'T1', account: 'A', order: 'O1', n: 1 });
        return 'one';
      });
      // A throw undoes that call's writes alone, and is thrown to its caller at once.
      expect(() =>
        database.durably(() => {
          docs.put('T2', { id: 'T2', account: 'A', order: 'O2', n: 2 });
          throw new Error('refused');
        }),
      ).toThrow('refused');
      const three = database.durably(() => {
        // Inside the group: the call sees the group's own writes (a repeated order_no is found).
        expect(docs.find('A').map((d) => d.id)).toEqual(['T1']);
        docs.put('T3', { id: 'T3', account: 'A', order: 'O3', n: 3 });
        return 'three';
      });
      expect(visible()).toEqual([]);
      expect(await Promise.all([one, three])).toEqual(['one', 'three']);
      expect(visible()).toEqual(['T1', 'T3']);
    } finally {
      other.close();
      database.close();
    }
  });

  it('commit an open group before any statement from outside it, so others see committed state only', () => {
    const path = join(dir, 'settle.sqlite');
    const database = openDatabase(path);
    const other = new Database(path, { readonly: true });
    try {
      const docs = new Collection<Doc>(database.db, 'transactions', keys, database.settle);
      const count = (): number => countRows(other);
      void database.durably(() => {
        docs.put('T1', { id: 'T1', account: 'A', order: 'O1', n: 1 });
      });
      expect(count()).toBe(0);
      // A read from outside (a query) commits the group first, in this same turn.
      expect(docs.get('T1')?.n).toBe(1);
      expect(count()).toBe(1);
      void database.durably(() => {
        docs.put('T2', { id: 'T2', account: 'A', order: 'O2', n: 2 });
      });
      // So does a transaction of its own, which then commits on its own.
      database.atomically(() => {
        docs.put('T3', { id: 'T3', account: 'A', order: 'O3', n: 3 });
      });
      expect(count()).toBe(3);
      void database.durably(() => {
        docs.put('T4', { id: 'T4', account: 'A', order: 'O4', n: 4 });
      });
    } finally {
      // Closing commits what a group still holds.
      database.close();
    }
    expect(countRows(other)).toBe(4);
    other.close();
  });
});
