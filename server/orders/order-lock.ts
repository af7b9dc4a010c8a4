/**
 * Mutual exclusion per order: calls in this process queue behind each other (so fifty
 * concurrent notifications for one order do not fight), and, for callers that need it, the
 * store's lease keeps other processes out. A lease another owner holds is retried with backoff for a bounded time, waiting
 * outside the queue so callers of this process that already hold the lease are not held up.
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
  /**
   * Runs `fn` holding the order's local lock only: callers of this process wait their turn, other
   * processes are kept out by the compare-and-set `fn` does, not by a lease. `fn` learns whether
   * it had to wait behind another call for the order (what it read before may then be stale).
   */
  serial<T>(orderId: string, fn: (waited: boolean) => Promise<T>): Promise<T>;
}

const NOT_ACQUIRED = Symbol('not acquired');

export function createOrderLocks(options: OrderLockOptions): OrderLocks {
  const { store, leaseMs, waitMs, logger } = options;
  const tails = new Map<string, Promise<void>>();

  /** Runs `step` once every earlier call for this order in this process has finished its own. */
  async function queued<T>(orderId: string, step: (waited: boolean) => Promise<T>): Promise<T> {
    const busy = tails.get(orderId);
    const previous = busy ?? Promise.resolve();
    let unlock = (): void => undefined;
    const mine = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    const tail = previous.then(() => mine);
    tails.set(orderId, tail);
    await previous;
    try {
      return await step(busy !== undefined);
    } finally {
      unlock();
      if (tails.get(orderId) === tail) tails.delete(orderId);
    }
  }

  async function run<T>(orderId: string, owner: string, keepLease: boolean, fn: () => Promise<T>): Promise<T | typeof BUSY> {
    let waited = 0;
    let delay = 5;
    for (;;) {
      // One try per turn in the queue: the backoff happens outside it, so a caller of this process
      // that already holds the lease (the sweeper, for the orders it claimed) is never stuck behind us.
      const outcome = await queued(orderId, async (): Promise<{ value: T } | typeof NOT_ACQUIRED> => {
        if (!(await store.acquireLease(orderId, owner, leaseMs))) return NOT_ACQUIRED;
        try {
          return { value: await fn() };
        } finally {
          if (!keepLease) {
            await store.releaseLease(orderId, owner).catch((error: unknown) => {
              // The lease expires on its own; a failed release only delays the next caller.
              logger.warn({ orderId, err: redact(error) }, 'Could not release the order lease');
            });
          }
        }
      });
      if (outcome !== NOT_ACQUIRED) return outcome.value;
      if (waited >= waitMs) return BUSY;
      const pause = Math.max(1, Math.min(delay + Math.floor(Math.random() * delay), waitMs - waited, 250));
      await sleep(pause);
      waited += pause;
      delay *= 2;
    }
  }

  return { run, serial: queued };
}
