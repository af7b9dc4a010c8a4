/**
 * An in-process PostgreSQL (PGlite) presented as the pool the PostgreSQL store expects, so the
 * adapter's tests run on a machine without a server. PGlite has exactly one connection: a
 * borrowed client holds it until released and `pool.query` waits its turn, which keeps each
 * transaction's statements together.
 */
import { PGlite } from '@electric-sql/pglite';
import type { PgClientLike, PgPoolLike, PgResultLike } from '../../server/orders/stores/postgres.js';
import type { Row } from '../../server/orders/stores/sql/rows.js';

class Turnstile {
  private tail: Promise<void> = Promise.resolve();

  /** Resolves with the function that lets the next waiter in. */
  enter(): Promise<() => void> {
    let leave!: () => void;
    const done = new Promise<void>((resolve) => {
      leave = resolve;
    });
    const before = this.tail;
    this.tail = before.then(() => done);
    return before.then(() => leave);
  }
}

export interface PglitePool extends PgPoolLike {
  readonly db: PGlite;
}

export async function createPglitePool(db: PGlite = new PGlite()): Promise<PglitePool> {
  await db.waitReady;
  const turn = new Turnstile();
  const run = async (text: string, values?: unknown[]): Promise<PgResultLike> => {
    if (values === undefined) {
      // Simple protocol, like pg without parameters: several statements are allowed.
      const results = await db.exec(text);
      return { rows: results[results.length - 1]?.rows ?? [] };
    }
    const result = await db.query<Row>(text, values);
    return { rows: result.rows };
  };
  return {
    db,
    async query(text, values) {
      const leave = await turn.enter();
      try {
        return await run(text, values);
      } finally {
        leave();
      }
    },
    async connect(): Promise<PgClientLike> {
      const leave = await turn.enter();
      let released = false;
      return {
        query: run,
        release() {
          if (released) return;
          released = true;
          leave();
        },
      };
    },
    async end() {
      await db.close();
    },
  };
}
