/**
 * The sandbox's state in SQLite (better-sqlite3): a file when `sqlitePath` is set, so a
 * restart keeps every transaction, otherwise an in-memory database. Each kind of record is a
 * table of JSON documents with the one or two columns it is looked up by.
 */
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
  CREATE INDEX IF NOT EXISTS ${table}_keys ON ${table} (k1, k2);`;
}

interface Row {
  data: string;
}

/** One table of JSON documents, ordered by insertion. */
export class Collection<T> {
  readonly #db: Database.Database;
  readonly #table: TableName;
  readonly #keys: (row: T) => [string, string];

  constructor(db: Database.Database, table: TableName, keys: (row: T) => [string, string]) {
    this.#db = db;
    this.#table = table;
    this.#keys = keys;
  }

  /** Inserts or replaces the document stored under `id`, keeping its original position. */
  put(id: string, row: T): void {
    const [k1, k2] = this.#keys(row);
    this.#db
      .prepare(
        `INSERT INTO ${this.#table} (id, k1, k2, seq, data)
         VALUES (?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM ${this.#table}), ?)
         ON CONFLICT(id) DO UPDATE SET k1 = excluded.k1, k2 = excluded.k2, data = excluded.data`,
      )
      .run(id, k1, k2, JSON.stringify(row));
  }

  get(id: string): T | undefined {
    const row = this.#db.prepare(`SELECT data FROM ${this.#table} WHERE id = ?`).get(id) as Row | undefined;
    return row === undefined ? undefined : (JSON.parse(row.data) as T);
  }

  /** Documents whose first key (and second, when given) match, oldest first. */
  find(k1: string, k2?: string): T[] {
    const rows = (
      k2 === undefined
        ? this.#db.prepare(`SELECT data FROM ${this.#table} WHERE k1 = ? ORDER BY seq`).all(k1)
        : this.#db.prepare(`SELECT data FROM ${this.#table} WHERE k1 = ? AND k2 = ? ORDER BY seq`).all(k1, k2)
    ) as Row[];
    return rows.map((row) => JSON.parse(row.data) as T);
  }

  all(): T[] {
    const rows = this.#db.prepare(`SELECT data FROM ${this.#table} ORDER BY seq`).all() as Row[];
    return rows.map((row) => JSON.parse(row.data) as T);
  }

  clear(): void {
    this.#db.prepare(`DELETE FROM ${this.#table}`).run();
  }
}

export interface SandboxDatabase {
  db: Database.Database;
  /** Runs `fn` in one SQLite transaction: several writes land together or not at all. */
  atomically<R>(fn: () => R): R;
  close(): void;
}

export function openDatabase(path: string | undefined): SandboxDatabase {
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
