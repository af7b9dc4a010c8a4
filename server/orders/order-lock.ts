/**
 * Mutual exclusion per order: calls in this process queue behind each other (so fifty
 * concurrent notifications for one order do not fight), and the store's lease keeps other
 * processes out. A lease another owner holds is retried with backoff for a bounded time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { redact } from '../logging.js';
import type { Logger } from '../logging.js';
import type { OrderStore } from './store.js';

export const BUSY = Symbol('busy');

export interface OrderLockOptions {
  store: OrderStore;
  leaseMs: number;
  /** Total time spent retrying a lease held by another owner. */
  waitMs: number;
  logger: Logger;
}

export interface OrderLocks {
  /**
   * Runs `fn` holding the order's local lock and the store lease under `owner`. Releases the
   * lease afterwards unless `keepLease` (the caller owns it). Answers BUSY when the lease stays
   * held by another owner.
   */
  run<T>(orderId: string, owner: string, keepLease: boolean, fn: () => Promise<T>): Promise<T | typeof BUSY>;
}

export function createOrderLocks(options: OrderLockOptions): OrderLocks {
  const { store, leaseMs, waitMs, logger } = options;
  const tails = new Map<string, Promise<void>>();

  async function acquire(orderId: string, owner: string): Promise<boolean> {
    let waited = 0;
    let delay = 5;
    for (;;) {
      if (await store.acquireLease(orderId, owner, leaseMs)) return true;
      if (waited >= waitMs) return false;
      const pause = Math.min(delay + Math.floor(Math.random() * delay), waitMs - waited, 250);
      await sleep(Math.max(1, pause));
      waited += Math.max(1, pause);
      delay *= 2;
    }
  }

  async function run<T>(orderId: string, owner: string, keepLease: boolean, fn: () => Promise<T>): Promise<T | typeof BUSY> {
    const previous = tails.get(orderId) ?? Promise.resolve();
    let unlock = (): void => undefined;
    const mine = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    const tail = previous.then(() => mine);
    tails.set(orderId, tail);
    await previous;
    try {
      if (!(await acquire(orderId, owner))) return BUSY;
      try {
        return await fn();
      } finally {
        if (!keepLease) {
          await store.releaseLease(orderId, owner).catch((error: unknown) => {
            // The lease expires on its own; a failed release only delays the next caller.
            logger.warn({ orderId, err: redact(error) }, 'Could not release the order lease');
          });
        }
      }
    } finally {
      unlock();
      if (tails.get(orderId) === tail) tails.delete(orderId);
    }
  }

  return { run };
}
