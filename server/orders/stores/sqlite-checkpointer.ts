/**
 * Background WAL checkpoints for the SQLite store. Left to SQLite, the commit that takes the WAL
 * past 1000 pages copies it into the database file and waits for the disk, inside whatever
 * request made that commit: a pause of about 10 ms every few hundred writes, and a third of the
 * cost of a write. Instead a worker thread with its own connection runs PASSIVE checkpoints,
 * which never block the store's writers or readers, when the store has committed enough to be
 * worth one and once a second otherwise. The store's own auto-checkpoint stays on at a higher
 * threshold (BACKSTOP_PAGES) so the WAL stays bounded if the worker ever falls behind.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../logging.js';

/** Pages the WAL may reach before a commit checkpoints inline after all (about 40 MB). */
export const BACKSTOP_PAGES = 10_000;
/** Commits between two nudges of the worker. */
const COMMITS_PER_CHECKPOINT = 32;
const IDLE_INTERVAL_MS = 1000;
const CLOSE_TIMEOUT_MS = 5000;

// Plain CommonJS run by the worker (eval), so it starts the same under node, tsx and test runners.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
let failed = false;
function checkpoint() {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    failed = false;
  } catch (error) {
    // Reported once per run of failures; the next nudge tries again.
    if (!failed) parentPort.postMessage({ error: String(error && error.message) });
    failed = true;
  }
}
const timer = setInterval(checkpoint, workerData.idleMs);
parentPort.on('message', (message) => {
  if (message === 'checkpoint') checkpoint();
  else if (message === 'close') {
    clearInterval(timer);
    checkpoint();
    db.close();
    parentPort.close();
  }
});
`;

export interface Checkpointer {
  /** Counts one commit; every few commits the worker is asked for a checkpoint. */
  committed(): void;
  /** Final checkpoint, then the worker's connection is closed. */
  close(): Promise<void>;
}

export function startCheckpointer(file: string, logger: Logger): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  // execArgv: [] so a parent's flags (--input-type=module, loaders) never reach the CommonJS source.
  // Its JavaScript is a timer and a pragma: a small V8 heap keeps the thread to a few MB of memory.
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    execArgv: [],
    resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
    workerData: { driver, file, idleMs: IDLE_INTERVAL_MS },
  });
  let alive = true;
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      alive = false;
      resolve();
    });
  });
  worker.on('message', (message: { error?: string }) => {
    if (message.error !== undefined) logger.warn({ store: 'sqlite', error: message.error }, 'background WAL checkpoint failed; retrying');
  });
  worker.on('error', (error: unknown) => {
    // The store's own auto-checkpoint takes over at BACKSTOP_PAGES.
    logger.error({ store: 'sqlite', err: error }, 'background WAL checkpointer stopped');
  });
  // Never the reason a process stays alive (after the listeners: adding one refs the port again).
  worker.unref();
  let commits = 0;
  return {
    committed() {
      if (++commits < COMMITS_PER_CHECKPOINT || !alive) return;
      commits = 0;
      worker.postMessage('checkpoint');
    },
    async close() {
      if (!alive) return;
      worker.postMessage('close');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => { resolve(true); }, CLOSE_TIMEOUT_MS)));
      const timedOut = await Promise.race([exited.then(() => false), late]);
      clearTimeout(timer);
      if (timedOut) await worker.terminate();
    },
  };
}
