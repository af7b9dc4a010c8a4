/**
 * Group commit for the SQLite store. With `synchronous=FULL` every COMMIT waits for the disk
 * (an fsync of the WAL), which costs far more than the writes themselves. Writes that arrive in
 * the same turn of the event loop (concurrent requests) therefore share one IMMEDIATE
 * transaction and one fsync: each write runs in its own savepoint, so a write that throws rolls
 * back only itself, and every caller's promise settles only after COMMIT has returned, so
 * nothing is acknowledged before it is on disk. A lone write waits one `setImmediate`.
 */
import type BetterSqlite3 from 'better-sqlite3';

/** Writes per transaction; a longer queue is split so one commit never holds the lock for long. */
const MAX_BATCH = 256;

// Captured at load so a test that fakes timers cannot stall the store's writes.
const defer = setImmediate;

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface GroupCommit {
  /** Runs `work` inside the next shared transaction; resolves once that transaction has committed. */
  write<T>(work: () => T): Promise<T>;
  /** Commits what is queued now, synchronously (before the database is closed). */
  flush(): void;
}

/** `onCommit` runs after each transaction that committed. */
export function createGroupCommit(db: BetterSqlite3.Database, onCommit?: () => void): GroupCommit {
  let queue: Pending[] = [];
  let scheduled = false;
  // Called inside `batch`, better-sqlite3 turns this into SAVEPOINT … RELEASE (ROLLBACK TO on a throw).
  const savepoint = db.transaction((work: () => unknown) => work());
  const batch = db.transaction((items: Pending[]): Outcome[] =>
    items.map((item): Outcome => {
      try {
        return { ok: true, value: savepoint(item.work) };
      } catch (error) {
        return { ok: false, error };
      }
    }),
  );

  function commit(items: Pending[]): void {
    let outcomes: Outcome[];
    try {
      // Inside a caller's own open transaction this nests as a savepoint and commits with it.
      outcomes = batch.immediate(items);
    } catch (error) {
      // BEGIN or COMMIT failed (busy, disk full): none of these writes is stored.
      for (const item of items) item.reject(error);
      return;
    }
    items.forEach((item, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok === true) item.resolve(outcome.value);
      else item.reject(outcome?.error ?? new Error('no outcome for a queued write'));
    });
    onCommit?.();
  }

  function flush(): void {
    scheduled = false;
    while (queue.length > 0) {
      const items = queue.length > MAX_BATCH ? queue.slice(0, MAX_BATCH) : queue;
      queue = queue.length > MAX_BATCH ? queue.slice(MAX_BATCH) : [];
      try {
        commit(items);
      } catch (error) {
        // Only a throwing onCommit gets here, after every item was settled: keep flushing.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  return {
    write<T>(work: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          defer(flush);
        }
      });
    },
    flush,
  };
}
