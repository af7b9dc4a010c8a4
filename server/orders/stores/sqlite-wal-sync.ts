/**
 * Background durability for the SQLite store. In WAL mode with `synchronous=FULL`, SQLite fsyncs
 * the WAL inside every COMMIT, and better-sqlite3 runs that fsync on the event loop: the whole
 * process stalls on the disk once per commit. With `synchronous=NORMAL` SQLite skips that fsync
 * (the database still cannot be corrupted: checkpoints sync the WAL first) and this module does
 * it instead, on libuv's thread pool, before any write is acknowledged. The result is the same
 * promise as FULL (a write's promise settles only once its WAL frames are on disk) without the
 * stall, and one fsync covers every commit made while the previous one was running.
 *
 * It uses fdatasync, as SQLite itself does on Linux: the frames and whatever metadata reading them
 * back needs (the file's length), without the timestamps. That flushes the file, not a
 * descriptor, so a read-only descriptor of `<db>-wal` suffices.
 * SQLite keeps that file (the same inode) for as long as the store's connection is open.
 */
import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';

export type SyncDone = (error: Error | null) => void;

export interface WalSync {
  /** Calls `done` once everything committed before this call is on disk. */
  request(done: SyncDone): void;
  /** Syncs now, synchronously, and settles every waiting request (used before closing). */
  flushSync(): void;
  /** Closes the descriptor; call after `flushSync`. */
  close(): void;
}

export function createWalSync(walPath: string): WalSync {
  let fd: number | null = null;
  let running = false;
  let closing = false;
  // Waiting on the fsync that is running; and requested since it started (it may not cover them).
  let covered: SyncDone[] = [];
  let next: SyncDone[] = [];

  const settle = (callbacks: SyncDone[], error: Error | null): void => {
    for (const done of callbacks) done(error);
  };

  function open(): number {
    fd ??= openSync(walPath, 'r');
    return fd;
  }

  function start(): void {
    let descriptor: number;
    try {
      descriptor = open();
    } catch (error) {
      const waiting = [...covered, ...next];
      covered = [];
      next = [];
      settle(waiting, error as Error);
      return;
    }
    running = true;
    fdatasync(descriptor, (error) => {
      running = false;
      if (closing) {
        // flushSync has settled everyone; the descriptor was kept open for this call only.
        closeNow();
        return;
      }
      if (error) {
        // What the failed fsync covered may be lost, and a later fsync cannot vouch for it: fail
        // every waiting write, those requested meanwhile included.
        const waiting = [...covered, ...next];
        covered = [];
        next = [];
        settle(waiting, error);
        return;
      }
      const done = covered;
      covered = next;
      next = [];
      // The next fsync starts before anyone hears back: a request made while they run waits for
      // it or, arriving after it started, for the one after.
      if (covered.length > 0) start();
      settle(done, null);
    });
  }

  function closeNow(): void {
    if (fd !== null) closeSync(fd);
    fd = null;
  }

  return {
    request(done) {
      if (running) {
        next.push(done);
        return;
      }
      covered.push(done);
      start();
    },
    flushSync() {
      if (covered.length === 0 && next.length === 0) return;
      const waiting = [...covered, ...next];
      covered = [];
      next = [];
      let failure: Error | null = null;
      try {
        fdatasyncSync(open());
      } catch (error) {
        failure = error as Error;
      }
      settle(waiting, failure);
    },
    close() {
      // An fsync still running on the thread pool must not find its descriptor reused.
      if (running) closing = true;
      else closeNow();
    },
  };
}
