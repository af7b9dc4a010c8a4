/**
 * The sandbox's state in SQLite (better-sqlite3): a file when `sqlitePath` is set, so a
 * restart keeps every transaction, otherwise an in-memory database. Each kind of record is a
 * table of JSON documents with the one or two columns it is looked up by.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

const TABLES = ['transactions', 'refunds', 'payouts', 'subscriptions', 'notifications', 'sessions', 'update_orders', 'tokens'] as const;
export type TableName = (typeof TABLES)[number];

function schemaSql(table: TableName): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (
    id TEXT PRIMARY KEY,
    k1 TEXT NOT NULL DEFAULT '',
    k2 TEXT NOT NULL DEFAULT '',
    seq INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS ${table}_keys ON ${table} (k1, k2);
  CREATE INDEX IF NOT EXISTS ${table}_seq ON ${table} (seq);`;
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
 * lookup goes through an index (seq is indexed too), so the cost of a call does not grow with
 * the number of documents.
 */
export class Collection<T> {
  readonly #keys: (row: T) => [string, string];
  readonly #put: Database.Statement<[string, string, string, string]>;
  readonly #get: Database.Statement<[string], Row>;
  readonly #byK1: Database.Statement<[string], Row>;
  readonly #byK1K2: Database.Statement<[string, string], Row>;
  readonly #byK1K2s: Database.Statement<[string, string], SeqRow>;
  readonly #byIds: Database.Statement<[string, string], SeqRow>;
  readonly #lastByK1: Database.Statement<[string, number], Row>;
  readonly #all: Database.Statement<[], Row>;
  readonly #clear: Database.Statement<[]>;

  constructor(db: Database.Database, table: TableName, keys: (row: T) => [string, string]) {
    this.#keys = keys;
    this.#put = db.prepare(
      `INSERT INTO ${table} (id, k1, k2, seq, data)
       VALUES (?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM ${table}), ?)
       ON CONFLICT(id) DO UPDATE SET k1 = excluded.k1, k2 = excluded.k2, data = excluded.data`,
    );
    this.#get = db.prepare(`SELECT data FROM ${table} WHERE id = ?`);
    this.#byK1 = db.prepare(`SELECT data FROM ${table} WHERE k1 = ? ORDER BY seq`);
    this.#byK1K2 = db.prepare(`SELECT data FROM ${table} WHERE k1 = ? AND k2 = ? ORDER BY seq`);
    this.#byK1K2s = db.prepare(`SELECT seq, data FROM ${table} WHERE k1 = ? AND k2 IN (SELECT value FROM json_each(?))`);
    this.#byIds = db.prepare(`SELECT seq, data FROM ${table} WHERE k1 = ? AND id IN (SELECT value FROM json_each(?))`);
    this.#lastByK1 = db.prepare(`SELECT data FROM (SELECT seq, data FROM ${table} WHERE k1 = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq`);
    this.#all = db.prepare(`SELECT data FROM ${table} ORDER BY seq`);
    this.#clear = db.prepare(`DELETE FROM ${table}`);
  }

  /** Inserts or replaces the document stored under `id`, keeping its original position. */
  put(id: string, row: T): void {
    const [k1, k2] = this.#keys(row);
    this.#put.run(id, k1, k2, JSON.stringify(row));
  }

  get(id: string): T | undefined {
    const row = this.#get.get(id);
    return row === undefined ? undefined : (JSON.parse(row.data) as T);
  }

  /** Documents whose first key (and second, when given) match, oldest first. */
  find(k1: string, k2?: string): T[] {
    return parse<T>(k2 === undefined ? this.#byK1.all(k1) : this.#byK1K2.all(k1, k2));
  }

  /** Documents under `k1` whose second key is among `k2s` or whose id is among `ids`, oldest first. */
  findAny(k1: string, k2s: readonly string[], ids: readonly string[]): T[] {
    const rows = new Map<number, Row>();
    if (k2s.length > 0) for (const row of this.#byK1K2s.all(k1, JSON.stringify(k2s))) rows.set(row.seq, row);
    if (ids.length > 0) for (const row of this.#byIds.all(k1, JSON.stringify(ids))) rows.set(row.seq, row);
    return parse<T>([...rows].sort((a, b) => a[0] - b[0]).map(([, row]) => row));
  }

  /** The newest `limit` documents under `k1`, oldest first. */
  last(k1: string, limit: number): T[] {
    return parse<T>(this.#lastByK1.all(k1, limit));
  }

  all(): T[] {
    return parse<T>(this.#all.all());
  }

  clear(): void {
    this.#clear.run();
  }
}

export interface SandboxDatabase {
  db: Database.Database;
  /** Runs `fn` in one SQLite transaction: several writes land together or not at all. */
  atomically<R>(fn: () => R): R;
  close(): void;
}

export function openDatabase(path: string | undefined): SandboxDatabase {
  // Like the order and admin stores, create the file's directory on first use.
  if (path !== undefined && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path ?? ':memory:');
  db.exec(TABLES.map(schemaSql).join('\n'));
  return {
    db,
    atomically: <R>(fn: () => R): R => db.transaction(fn)(),
    close: () => {
      if (db.open) db.close();
    },
  };
}
