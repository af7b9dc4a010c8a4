/**
 * How the SQLite store makes every write durable without stalling the event loop, as one piece:
 * WAL mode, group commit (sqlite-group-commit.ts), the WAL fsynced on libuv's thread pool
 * (sqlite-wal-sync.ts) and checkpoints on a worker thread (sqlite-checkpointer.ts). The order
 * store writes through it; so does the benchmark's durable baseline, which measures what one
 * durable row costs on a machine apart from everything the kit does around it.
 */
import { resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { Logger } from '../../logging.js';
import { BACKSTOP_PAGES, startCheckpointer, type Checkpointer } from './sqlite-checkpointer.js';
import { createGroupCommit, type GroupCommit } from './sqlite-group-commit.js';
import { createWalSync, type WalSync } from './sqlite-wal-sync.js';

// Each layer's measured margin over SQLite's own settings is in docs/performance.md, "Machinery"
// (bench/machinery.ts): the WAL sync 1.8–2.2× the durable rows/s of FULL; the checkpoint worker a
// lower p99 (31 against 68 ms) with no margin in rate on the machine measured.

/** Commits before the background checkpointer starts. */
const CHECKPOINTER_AFTER_COMMITS = 64;

export interface DurableWritesOptions {
  logger: Logger;
  /** Checkpoint the WAL from a worker thread (ignored for `:memory:`). */
  backgroundCheckpoints: boolean;
  /** fsync the WAL off the event loop (`synchronous=NORMAL`); false: inside COMMIT (`FULL`). */
  backgroundSync: boolean;
}

export interface DurableWrites extends GroupCommit {
  /** Commits and syncs what is queued, then stops the checkpoint thread; the database stays open. */
  close(): Promise<void>;
}

/**
 * Sets the connection's journal and sync modes. Call once, before the first statement is
 * prepared: it runs pragmas that may fail (the caller closes what it opened).
 */
export function configureDurability(db: BetterSqlite3.Database, options: DurableWritesOptions): WalSync | null {
  const wal = !db.memory && db.pragma('journal_mode = WAL', { simple: true }) === 'wal';
  let walSync: WalSync | null = null;
  // Set either way: in WAL mode better-sqlite3's build defaults to NORMAL, where COMMIT alone
  // does not reach the disk.
  if (wal && options.backgroundSync) {
    db.pragma('synchronous = NORMAL');
    walSync = createWalSync(`${resolve(db.name)}-wal`);
  } else {
    db.pragma('synchronous = FULL');
  }
  if (options.backgroundCheckpoints && !db.memory) db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  return walSync;
}

/** The group commit over a connection `configureDurability` has set up. */
export function createDurableWrites(db: BetterSqlite3.Database, walSync: WalSync | null, options: DurableWritesOptions): DurableWrites {
  const { logger } = options;
  // Started once the connection has committed a little: a store that barely writes needs no thread.
  let checkpointer: Checkpointer | null = null;
  let commitsUntilCheckpointer = CHECKPOINTER_AFTER_COMMITS;
  const onCommit = (): void => {
    if (checkpointer !== null) checkpointer.committed();
    else if (--commitsUntilCheckpointer <= 0) checkpointer = startCheckpointer(db.name, logger);
  };
  const commits = createGroupCommit(db, {
    ...(options.backgroundCheckpoints && !db.memory ? { onCommit } : {}),
    ...(walSync === null ? {} : { walSync }),
    onSyncFailed: (error) => {
      logger.error({ err: error, database: db.name }, 'SQLite: fsync of the WAL failed; writes waiting on it were rejected, later commits sync inside COMMIT');
      if (db.open) db.pragma('synchronous = FULL');
    },
  });
  return {
    ...commits,
    async close() {
      if (db.open) commits.flush();
      walSync?.close();
      await checkpointer?.close();
      checkpointer = null;
    },
  };
}
