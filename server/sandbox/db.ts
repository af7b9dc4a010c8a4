/**
 * The sandbox's state in SQLite (better-sqlite3): a file when `sqlitePath` is set, so a
 * restart keeps every transaction, otherwise an in-memory database. Each kind of record is a
 * table of JSON documents with the one or two columns it is looked up by.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

const TABLES = ['transactions', 'refunds', 'payouts', 'subscriptions', 'notifications', 'sessions', 'update_orders', 'tokens', 'settings'] as const;
export type TableName = (typeof TABLES)[number];

/**
 * `seq` is the rowid: rows are stored in insertion order and each insert updates three b-trees
 * (rows, id, keys), not four. Files made before this kept `id` as the primary key plus an index
 * on `seq`; every statement below works the same on both layouts.
 */
function schemaSql(table: TableName): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    k1 TEXT NOT NULL DEFAULT '',
    k2 TEXT NOT NULL DEFAULT '',
    data TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS ${table}_keys ON ${table} (k1, k2);`;
}

interface Row {
  data: string;
}

interface SeqRow extends Row {
  seq: number;
}

const parse = <T>(rows: readonly Row[]): T[] => rows.map((row) => JSON.parse(row.data) as T);

/**
 * One table of JSON documents, ordered by insertion. Statements are prepared once and every
 * lookup goes through an index (or the rowid), so the cost of a call does not grow with the
 * number of documents.
 */
export class Collection<T> {
  readonly #keys: (row: T) => [string, string];
  readonly #settle: () => void;
  readonly #put: Database.Statement<[string, string, string, string]>;
  readonly #rewrite: Database.Statement<[string, string, string, string]>;
  readonly #get: Database.Statement<[string], Row>;
  readonly #byK1: Database.Statement<[string], Row>;
  readonly #byK1K2: Database.Statement<[string, string], Row>;
  readonly #byK1K2s: Database.Statement<[string, string], SeqRow>;
  readonly #byIds: Database.Statement<[string, string], SeqRow>;
  readonly #lastByK1: Database.Statement<[string, number], Row>;
  readonly #all: Database.Statement<[], Row>;
  readonly #clear: Database.Statement<[]>;

  /** `settle` runs before every statement: SandboxDatabase.settle, so no call sees a shared commit still open. */
  constructor(db: Database.Database, table: TableName, keys: (row: T) => [string, string], settle: () => void = () => undefined) {
    this.#keys = keys;
    this.#settle = settle;
    this.#put = db.prepare(
      `INSERT INTO ${table} (id, k1, k2, seq, data)
       VALUES (?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM ${table}), ?)
       ON CONFLICT(id) DO UPDATE SET k1 = excluded.k1, k2 = excluded.k2, data = excluded.data`,
    );
    this.#rewrite = db.prepare(`UPDATE ${table} SET data = ? WHERE id = ? AND k1 = ? AND k2 = ?`);
    this.#get = db.prepare(`SELECT data FROM ${table} WHERE id = ?`);
    this.#byK1 = db.prepare(`SELECT data FROM ${table} WHERE k1 = ? ORDER BY seq`);
    this.#byK1K2 = db.prepare(`SELECT data FROM ${table} WHERE k1 = ? AND k2 = ? ORDER BY seq`);
    this.#byK1K2s = db.prepare(`SELECT seq, data FROM ${table} WHERE k1 = ? AND k2 IN (SELECT value FROM json_each(?))`);
    // `+k1`: look the ids up by their own index; the planner would otherwise walk every row under k1.
    this.#byIds = db.prepare(`SELECT seq, data FROM ${table} WHERE +k1 = ? AND id IN (SELECT value FROM json_each(?))`);
    this.#lastByK1 = db.prepare(`SELECT data FROM (SELECT seq, data FROM ${table} WHERE k1 = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq`);
    this.#all = db.prepare(`SELECT data FROM ${table} ORDER BY seq`);
    this.#clear = db.prepare(`DELETE FROM ${table}`);
  }

  /** Inserts or replaces the document stored under `id`, keeping its original position. */
  put(id: string, row: T): void {
    this.#settle();
    const [k1, k2] = this.#keys(row);
    this.#put.run(id, k1, k2, JSON.stringify(row));
  }

  /**
   * Replaces a document read from this collection. When its keys are unchanged (a status change,
   * a capture) only the document is written and the indexes are left alone; otherwise as put.
   */
  rewrite(id: string, row: T): void {
    this.#settle();
    const [k1, k2] = this.#keys(row);
    const data = JSON.stringify(row);
    if (this.#rewrite.run(data, id, k1, k2).changes === 0) this.#put.run(id, k1, k2, data);
  }

  get(id: string): T | undefined {
    this.#settle();
    const row = this.#get.get(id);
    return row === undefined ? undefined : (JSON.parse(row.data) as T);
  }

  /** Documents whose first key (and second, when given) match, oldest first. */
  find(k1: string, k2?: string): T[] {
    this.#settle();
    return parse<T>(k2 === undefined ? this.#byK1.all(k1) : this.#byK1K2.all(k1, k2));
  }

  /** Documents under `k1` whose second key is among `k2s` or whose id is among `ids`, oldest first. */
  findAny(k1: string, k2s: readonly string[], ids: readonly string[]): T[] {
    this.#settle();
    // One key (a notification being confirmed): the plain lookup, already in order.
    const [only] = k2s;
    if (only !== undefined && k2s.length === 1 && ids.length === 0) return this.find(k1, only);
    const rows = new Map<number, Row>();
    if (k2s.length > 0) for (const row of this.#byK1K2s.all(k1, JSON.stringify(k2s))) rows.set(row.seq, row);
    if (ids.length > 0) for (const row of this.#byIds.all(k1, JSON.stringify(ids))) rows.set(row.seq, row);
    return parse<T>([...rows].sort((a, b) => a[0] - b[0]).map(([, row]) => row));
  }

  /** The newest `limit` documents under `k1`, oldest first. */
  last(k1: string, limit: number): T[] {
    this.#settle();
    return parse<T>(this.#lastByK1.all(k1, limit));
  }

  all(): T[] {
    this.#settle();
    return parse<T>(this.#all.all());
  }

  clear(): void {
    this.#settle();
    this.#clear.run();
  }
}

/** Pages the ledger's WAL reaches before a commit copies it into the database file. */
export const WAL_CHECKPOINT_PAGES = 10_000;

export interface SandboxDatabase {
  db: Database.Database;
  /** Runs `fn` in one SQLite transaction: several writes land together or not at all. */
  atomically<R>(fn: () => R): R;
  /**
   * Runs `fn` at once, as `atomically` does (its writes land together or not at all; a throw
   * undoes them and is thrown here), inside one transaction shared with the other `durably`
   * calls of this turn of the event loop, and resolves with its result once that transaction
   * is committed. One commit then writes each page the group touched once (a payment dirties
   * about seven, a WAL frame each) instead of once per request. Answer only after it resolves.
   */
  durably<R>(fn: () => R): Promise<R>;
  /**
   * Commits the shared transaction now, unless called from inside a `durably` function: every
   * other caller (queries, pages, the notifier, the control API) reads and writes committed
   * state only, as before. The ledger's collections call it before each statement.
   */
  readonly settle: () => void;
  close(): void;
}

export function openDatabase(path: string | undefined): SandboxDatabase {
  // Like the order and admin stores, create the file's directory on first use.
  if (path !== undefined && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path ?? ':memory:');
  if (!db.memory) {
    // A test ledger: WAL keeps readers off the writer, and NORMAL survives a crash of the process
    // (not a power cut) without waiting for the disk on every commit, as a gateway's reply should not.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // SQLite checkpoints inside the commit that takes the WAL past this many pages. At its default
    // (1000) that is every ~130 payments, each time two fsyncs and a fresh copy of the pages every
    // payment touches (index leaves, the last table pages), a third of the time a payment spends
    // here. Ten times rarer copies those pages and waits for the disk far less often in all, and
    // the WAL stays bounded (about 40 MB).
    db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  }
  db.exec(TABLES.map(schemaSql).join('\n'));
  // One wrapper for every call: db.transaction() builds a new one each time, which costs more than a write.
  // Inside an open transaction it runs `fn` in a savepoint, so one `durably` call's throw undoes its writes alone.
  const inTransaction = db.transaction((fn: () => unknown) => fn());
  const begin = db.prepare('BEGIN');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  /** The shared transaction of `durably`, open until the check phase of this turn. */
  let group: { committed: Promise<void>; resolve: () => void; reject: (error: unknown) => void } | null = null;
  /** `durably` functions running now (they may read and write inside the group). */
  let inside = 0;

  const commitGroup = (): void => {
    const current = group;
    if (current === null) return;
    group = null;
    try {
      // A failed statement may have ended the transaction already (SQLite rolls back on some
      // errors): then COMMIT throws and every caller of the group is told, none answers success.
      commit.run();
    } catch (error) {
      if (db.inTransaction) rollback.run();
      current.reject(error);
      return;
    }
    current.resolve();
  };
  const settle = (): void => {
    if (group !== null && inside === 0) commitGroup();
  };

  return {
    db,
    atomically: <R>(fn: () => R): R => {
      settle();
      return inTransaction(fn) as R;
    },
    durably: <R>(fn: () => R): Promise<R> => {
      // Inside another transaction (an `atomically` function): part of that one, committed with it.
      if (group === null && db.inTransaction) return Promise.resolve(inTransaction(fn) as R);
      // A group whose transaction SQLite ended: settled now (its callers are told), a new one opens.
      if (group !== null && !db.inTransaction) commitGroup();
      if (group === null) {
        begin.run();
        let resolve = (): void => undefined;
        let reject = (_error: unknown): void => undefined;
        const committed = new Promise<void>((yes, no) => {
          resolve = yes;
          reject = no;
        });
        // Every caller waits on its own `then`; a group whose callers all threw has none.
        committed.catch(() => undefined);
        group = { committed, resolve, reject };
        setImmediate(commitGroup);
      }
      const { committed } = group;
      inside++;
      let result: R;
      try {
        result = inTransaction(fn) as R;
      } finally {
        inside--;
      }
      return committed.then(() => result);
    },
    settle,
    close: () => {
      if (!db.open) return;
      // Whatever a group still holds is committed first, as its callers were promised.
      commitGroup();
      db.close();
    },
  };
}
