/**
 * Group commit for the SQLite store. Every commit must reach the disk (an fsync of the WAL),
 * which costs far more than the writes themselves. Writes that arrive in
 * the same turn of the event loop (concurrent requests) therefore share one IMMEDIATE
 * transaction and one fsync: each write runs in its own savepoint, so a write that throws rolls
 * back only itself, and every caller's promise settles only once the commit is on disk. A lone write waits one `setImmediate`.
 *
 * Without a `walSync`, COMMIT itself waits for the disk (`synchronous=FULL`) and the promises
 * settle after it. With one (sqlite-wal-sync.ts), COMMIT does not wait for the disk: they settle
 * after the background fsync that covers the commit, and writes arriving while that fsync runs
 * wait for it and then commit together. So each commit gathers everything that arrived during
 * the last disk wait, as when COMMIT itself blocked, and the hot pages (index leaves, the table's
 * last page) go to the WAL once per disk wait rather than once per turn of the event loop. That
 * next commit, and its fsync, start as soon as the previous fsync ends, before its writers hear
 * back: answering them is CPU work the disk need not wait for.
 */
// Measured (bench/machinery.ts durable, 32 writers): about 5,100 durable rows/s at 25 µs CPU each,
// against 151 rows/s at 537 µs for a transaction per write; docs/performance.md, "Machinery".
import type BetterSqlite3 from 'better-sqlite3';
import { KitError } from '../../errors.js';
import type { WalSync } from './sqlite-wal-sync.js';

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
  /** Commits what is queued now and makes it durable, synchronously (before the database is closed). */
  flush(): void;
}

export interface GroupCommitOptions {
  /** Runs after each transaction that committed. */
  onCommit?: () => void;
  /** Makes each commit durable off the event loop (the connection runs `synchronous=NORMAL`). */
  walSync?: WalSync;
  /**
   * Called once when a background sync fails. The writes it covered are rejected (they may not be
   * on disk); from then on writes are acknowledged after COMMIT, so the caller must make COMMIT
   * durable again (`synchronous=FULL`).
   */
  onSyncFailed?: (error: Error) => void;
}

function settleAll(items: Pending[], outcomes: Outcome[]): void {
  items.forEach((item, i) => {
    const outcome = outcomes[i];
    if (outcome?.ok === true) item.resolve(outcome.value);
    else item.reject(outcome?.error ?? new Error('no outcome for a queued write'));
  });
}

export function createGroupCommit(db: BetterSqlite3.Database, options: GroupCommitOptions = {}): GroupCommit {
  const { onCommit, onSyncFailed } = options;
  let walSync = options.walSync ?? null;
  let queue: Pending[] = [];
  let scheduled = false;
  // A commit is waiting for its background fsync: the next one waits for it too.
  let syncing = false;
  // Called inside `batch`, better-sqlite3 turns this into SAVEPOINT … RELEASE (ROLLBACK TO on a throw).
  // Measured and kept: a savepoint costs about 1 µs per write in a batch of 32 and 2.5 µs for a
  // lone write, and under the pay routes' load a batch of one was 0–4% of commits (10 of 265).
  // Skipping it for lone writes made no difference in the engine's CPU per payment.
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

  function afterSync(items: Pending[], outcomes: Outcome[], error: Error): void {
    if (walSync !== null) {
      walSync = null;
      onSyncFailed?.(error);
    }
    const failure = new KitError('ERR_STORE', 'The order store could not make a write durable (fsync failed); it may be lost', { cause: error, details: { reason: 'fsync' } });
    items.forEach((item, i) => {
      const outcome = outcomes[i];
      item.reject(outcome?.ok === true ? failure : outcome?.error ?? failure);
    });
  }

  function commit(items: Pending[]): void {
    // Inside a caller's transaction, durability is the caller's COMMIT: nothing to wait for here.
    const sync = db.inTransaction ? null : walSync;
    let outcomes: Outcome[];
    try {
      // Inside a caller's own open transaction this nests as a savepoint and commits with it.
      outcomes = batch.immediate(items);
    } catch (error) {
      // BEGIN or COMMIT failed (busy, disk full): none of these writes is stored.
      for (const item of items) item.reject(error);
      return;
    }
    if (sync === null) settleAll(items, outcomes);
    else {
      syncing = true;
      sync.request((error) => {
        syncing = false;
        if (error === null) {
          // What arrived during this fsync commits first, so its own fsync is already running
          // while these callers go on to write their answers (CPU the disk need not wait for).
          commitQueued();
          settleAll(items, outcomes);
          return;
        }
        afterSync(items, outcomes, error);
        schedule();
      });
    }
    onCommit?.();
  }

  function schedule(): void {
    if (scheduled || queue.length === 0) return;
    scheduled = true;
    defer(commitQueued);
  }

  function commitQueued(): void {
    scheduled = false;
    while (queue.length > 0 && !syncing) {
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
        schedule();
      });
    },
    flush() {
      // Synchronously, whatever is in flight: each sync settles its commit and lets the next one run.
      walSync?.flushSync();
      while (queue.length > 0) {
        commitQueued();
        walSync?.flushSync();
      }
    },
  };
}
