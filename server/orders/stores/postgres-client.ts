/**
 * The small part of node-postgres the PostgreSQL store needs. A `pg.Pool` satisfies it as is;
 * anything else that can run parameterised SQL and hand out a dedicated connection (an in-process
 * PostgreSQL, a proxy, a tracing wrapper) can stand in for it.
 */
import type { Row } from './sql/rows.js';

export interface PgResultLike {
  rows: Row[];
}

export interface PgClientLike {
  /** Several statements in one text are allowed when `values` is absent (simple query protocol). */
  query(text: string, values?: unknown[]): Promise<PgResultLike>;
  /** Returns the connection to the pool; a truthy argument tells the pool to discard it. */
  release(error?: Error | boolean): void;
}

export interface PgPoolLike {
  query(text: string, values?: unknown[]): Promise<PgResultLike>;
  connect(): Promise<PgClientLike>;
  end(): Promise<void>;
}

/** Runs `fn` inside BEGIN … COMMIT on one connection; `fn` returns `commit: false` to roll back. */
export async function inTransaction<T>(
  pool: PgPoolLike,
  fn: (client: PgClientLike) => Promise<{ commit: boolean; value: T }>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  let began = false;
  try {
    await client.query('BEGIN');
    began = true;
    const { commit, value } = await fn(client);
    await client.query(commit ? 'COMMIT' : 'ROLLBACK');
    return value;
  } catch (error) {
    // A connection that failed to begin, or cannot roll back, is in an unknown state: discard it.
    broken = error instanceof Error ? error : new Error('transaction failed');
    if (began) {
      await client.query('ROLLBACK').then(
        () => {
          broken = undefined;
        },
        () => undefined,
      );
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
