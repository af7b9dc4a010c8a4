/**
 * Delivers the hook outbox: claims due entries, calls each hook with its entry's id as
 * `eventId`, removes the entry once the hook returned, and on failure records `hook_failed` and
 * retries with capped exponential backoff, giving up (status `dead`) after `maxAttempts`.
 *
 * Order: an order's entries go in `position` order, and the entries of one change (one order
 * version) all wait until every entry of the changes before it was delivered or given up, so an
 * order's `onPaid` is never called after its `onRefunded`. Within one process the runs for one
 * order are serialised; across processes the store's claim (a lease per entry, taken for whole
 * orders) keeps two dispatchers off the same order.
 *
 * `deliver(orderId)` is what the engine awaits right after its compare-and-set wins, for at most
 * `waitMs`: a hook that takes longer (or never settles) goes on in the background, so the change's
 * caller still answers. A hook call is never cut short (that would deliver its eventId a second
 * time while the first call still runs); instead, while it is in flight the dispatcher renews the
 * order's lease, so no other dispatcher takes the order, and its background round skips the order
 * rather than waiting behind it. A hook that never settles thus holds up only its own order's
 * later hooks. The loop started by `start()` picks up what a crash, a failure or a busy order
 * left behind.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { redact, silentLogger } from '../logging.js';
import type { Logger } from '../logging.js';
import type { OrderObserver } from './order-observer.js';
import { inCarriedSpan } from '../tracing.js';
import { callHook, entryStates, type OrderHooks } from './hooks.js';
import type { OrderStore, OutboxEntry } from './store.js';
import type { FactSource } from './types.js';

export interface OutboxDispatcherOptions {
  store: OrderStore;
  hooks: OrderHooks;
  logger?: Logger;
  /** Lease owner id, one per dispatcher. Defaults to a random id. */
  owner?: string;
  /** How often the background loop looks for due entries, ms. Default 1000. */
  intervalMs?: number;
  /** How long a claim keeps an order's entries from other dispatchers, ms. Default 60000. */
  leaseMs?: number;
  /** Orders per background round. Default 50. */
  batchSize?: number;
  /** Attempts before an entry is given up (status `dead`). Default 20. */
  maxAttempts?: number;
  /** Delay before the first retry, ms; doubled after each failure. Default 1000. */
  backoffMs?: number;
  /** The largest delay between two attempts, ms. Default 600000 (10 minutes). */
  maxBackoffMs?: number;
  /**
   * How long `deliver` waits for the order's hooks before it resolves while they go on in the
   * background, ms. Default 2000, or `leaseMs` if that is shorter.
   */
  waitMs?: number;
  /**
   * How long `stop()` waits for hook calls under way before it resolves without them, ms.
   * Default 10000. A call still running then goes on, its lease renewed while this process
   * lives; once the process exits the lease lapses and the entry is delivered again (same `eventId`).
   */
  stopGraceMs?: number;
  now?: () => Date;
  /** Told of every failed delivery. */
  observer?: OrderObserver | undefined;
}

export interface OutboxDispatcher {
  /**
   * Delivers the due entries of one order now; never rejects (failures are recorded and retried).
   * Resolves after at most `waitMs`; a slower delivery goes on in the background.
   * From inside one of that order's hooks it returns at once: the delivery under way takes the new entries.
   */
  deliver(orderId: string): Promise<void>;
  /**
   * One background round: claims up to `batchSize` orders with due entries and delivers them,
   * skipping orders whose delivery is under way in this process. Resolves to the entries delivered.
   */
  runOnce(): Promise<number>;
  /** Starts the background loop; its first round runs at once, so a restart picks up what a crash left. */
  start(): void;
  /**
   * Stops the loop and waits for deliveries under way, for at most `stopGraceMs`; a hook still
   * running then is logged and left running. Until `start()`, `deliver` and `runOnce` do nothing:
   * what they would deliver stays in the outbox.
   */
  stop(): Promise<void>;
  readonly running: boolean;
}

export const OUTBOX_DEFAULTS = { intervalMs: 1000, leaseMs: 60_000, batchSize: 50, maxAttempts: 20, backoffMs: 1000, maxBackoffMs: 10 * 60_000, waitMs: 2000, stopGraceMs: 10_000 } as const;

/** Rounds of claim → deliver per `deliver` call, so entries stored meanwhile by another instance are not left to the loop. */
const MAX_ROUNDS = 4;

/** setTimeout's largest delay; a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The orders whose hooks the current async context is running (a hook may change its own order). */
const delivering = new AsyncLocalStorage<ReadonlySet<string>>();

export function createOutboxDispatcher(options: OutboxDispatcherOptions): OutboxDispatcher {
  const { store, hooks } = options;
  const logger = options.logger ?? silentLogger;
  const owner = options.owner ?? `outbox-${randomUUID()}`;
  const now = options.now ?? ((): Date => new Date());
  const settings = {
    intervalMs: options.intervalMs ?? OUTBOX_DEFAULTS.intervalMs,
    leaseMs: options.leaseMs ?? OUTBOX_DEFAULTS.leaseMs,
    batchSize: options.batchSize ?? OUTBOX_DEFAULTS.batchSize,
    maxAttempts: options.maxAttempts ?? OUTBOX_DEFAULTS.maxAttempts,
    backoffMs: options.backoffMs ?? OUTBOX_DEFAULTS.backoffMs,
    maxBackoffMs: options.maxBackoffMs ?? OUTBOX_DEFAULTS.maxBackoffMs,
    stopGraceMs: options.stopGraceMs ?? OUTBOX_DEFAULTS.stopGraceMs,
  };
  const waitMs = options.waitMs ?? Math.min(OUTBOX_DEFAULTS.waitMs, settings.leaseMs);
  /** The run under way per order in this process; a new one chains after it. */
  const runs = new Map<string, Promise<number>>();
  const inFlight = new Set<Promise<unknown>>();
  let timer: NodeJS.Timeout | null = null;
  /** Set by stop() until the next start(): no new attempt begins. */
  let stopping = false;
  /** Counts start() calls: a stop() still waiting when the loop restarts has nothing left to wait for. */
  let generation = 0;

  const track = <T>(promise: Promise<T>): Promise<T> => {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise)).catch(() => undefined);
    return promise;
  };

  /** Records one failed attempt: the next is due after the backoff, or the entry is given up. */
  async function failed(entry: OutboxEntry, error: unknown): Promise<boolean> {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    const attempts = entry.attempts + 1;
    const gaveUp = attempts >= settings.maxAttempts;
    const retryInMs = gaveUp ? null : Math.min(settings.maxBackoffMs, settings.backoffMs * 2 ** (attempts - 1));
    const context = { orderId: entry.orderId, orderNo: entry.order.orderNo, hook: entry.hook, eventId: entry.id, attempts, err: redact(error) };
    options.observer?.hookFailed(entry.hook, gaveUp);
    if (gaveUp) logger.error(context, 'Order hook failed for the last time: given up');
    else logger.error({ ...context, retryInMs }, 'Order hook failed');
    const safe = String(redact(message));
    await store.failOutbox(entry.id, { error: safe, retryInMs });
    const states = entryStates(entry);
    try {
      await store.appendEvent(entry.orderId, {
        type: 'hook_failed',
        source: entry.payload.source as FactSource,
        fromState: states.from,
        toState: states.to,
        data: redact({ hook: entry.hook, error: message, eventId: entry.id, attempts, ...(gaveUp ? { gaveUp: true } : { retryInMs }) }) as Record<string, unknown>,
      });
    } catch (recordError) {
      logger.error({ orderId: entry.orderId, hook: entry.hook, err: redact(recordError) }, 'Could not record the hook failure');
    }
    return gaveUp;
  }

  /**
   * Heartbeat while a hook call is in flight: claiming the order again as the same owner renews
   * the lease on its pending entries (the entry being delivered stays due until it completes), so
   * a slow hook's eventId is not claimed and sent again by another dispatcher meanwhile.
   */
  function renewWhileInFlight(orderId: string): () => void {
    const beat = setInterval(() => {
      store.claimOutbox({ owner, leaseMs: settings.leaseMs, limit: 1, orderId }).catch((error: unknown) => {
        logger.warn({ orderId, err: redact(error) }, 'Could not renew the hook outbox lease');
      });
    }, Math.max(1, Math.floor(settings.leaseMs / 3)));
    beat.unref();
    return () => {
      clearInterval(beat);
    };
  }

  /** One claim of the order and the attempts it allows; resolves to the entries it attempted. */
  async function attemptOrder(orderId: string, counts: { delivered: number }): Promise<number> {
    const entries = await store.claimOutbox({ owner, leaseMs: settings.leaseMs, limit: 1, orderId });
    if (entries.length === 0) return 0;
    let attempted = 0;
    let untouched = false;
    // The version of the first change with an entry still owed: later changes wait for it.
    let blocked = Infinity;
    for (const entry of entries) {
      if (entry.order.version > blocked || stopping) {
        untouched = true;
        continue;
      }
      // A new entry is due at once, whatever clock the store keeps; a retry waits for its time.
      if (entry.attempts > 0 && entry.nextAttemptAt.getTime() > now().getTime()) {
        blocked = Math.min(blocked, entry.order.version);
        untouched = true;
        continue;
      }
      attempted++;
      let delivered: boolean;
      const stopRenewing = renewWhileInFlight(orderId);
      try {
        const inside = new Set(delivering.getStore()).add(entry.orderId);
        // In the trace of the change that owed the call (its payload's traceparent).
        const attributes = { 'checkout.hook': entry.hook, 'checkout.hook.attempt': entry.attempts + 1 };
        await delivering.run(inside, () => inCarriedSpan(entry.payload.traceparent, `hook ${entry.hook}`, attributes, () => callHook(hooks, entry, store)));
        delivered = true;
      } catch (error) {
        delivered = false;
        if (!(await failed(entry, error))) blocked = Math.min(blocked, entry.order.version);
      } finally {
        stopRenewing();
      }
      if (delivered) {
        await store.completeOutbox(entry.id);
        counts.delivered++;
      }
    }
    if (untouched) await store.releaseOutbox(orderId, owner);
    return attempted;
  }

  async function run(orderId: string): Promise<number> {
    const counts = { delivered: 0 };
    try {
      for (let i = 0; i < MAX_ROUNDS && !stopping; i++) {
        if ((await attemptOrder(orderId, counts)) === 0) break;
      }
    } catch (error) {
      // A store failure: the entries stay and their leases lapse, so the loop delivers them later.
      logger.error({ orderId, err: redact(error) }, 'Could not deliver the order hooks now; the outbox keeps them');
    }
    return counts.delivered;
  }

  function serial(orderId: string): Promise<number> {
    const before = runs.get(orderId);
    const next = (before ?? Promise.resolve(0)).then(() => run(orderId));
    runs.set(orderId, next);
    void next.finally(() => {
      if (runs.get(orderId) === next) runs.delete(orderId);
    });
    return track(next);
  }

  async function runOnce(): Promise<number> {
    if (stopping) return 0;
    let delivered = 0;
    try {
      const claimed = await store.claimOutbox({ owner, leaseMs: settings.leaseMs, limit: settings.batchSize });
      for (const orderId of new Set(claimed.map((e) => e.orderId))) {
        // Under way here already (maybe a hook that never settles): that run holds the order's
        // lease and delivers what is due; waiting behind it would stop every other order's retries.
        if (runs.has(orderId)) continue;
        delivered += await serial(orderId);
        // What this round's claim leased and the run did not reach (nothing was due by then).
        await store.releaseOutbox(orderId, owner);
      }
    } catch (error) {
      logger.error({ err: redact(error) }, 'Outbox round failed');
    }
    return delivered;
  }

  function schedule(delayMs: number): void {
    const mine = setTimeout(() => {
      void track(runOnce()).finally(() => {
        // Only the loop this timer belongs to goes on: after stop() and start() a new one runs.
        if (timer === mine) schedule(settings.intervalMs);
      });
    }, delayMs);
    mine.unref();
    timer = mine;
  }

  return {
    deliver: async (orderId) => {
      // Called from one of this order's own hooks (say a capture in onAuthorized): waiting for the
      // run under way would wait for ourselves; that run claims again and delivers the new calls.
      if (delivering.getStore()?.has(orderId) === true) return;
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
        timer.unref();
      });
      await Promise.race([serial(orderId), waited]);
      clearTimeout(timer);
    },
    runOnce: () => track(runOnce()),
    start() {
      if (timer !== null) return;
      stopping = false;
      generation++;
      schedule(0);
    },
    async stop() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      stopping = true;
      const stoppedAt = generation;
      const deadline = Date.now() + settings.stopGraceMs;
      while (inFlight.size > 0 && generation === stoppedAt) {
        const left = deadline - Date.now();
        if (left <= 0) {
          // A hook that does not settle must not hold the shop's shutdown forever. It is not cut
          // short and its lease is still renewed (the heartbeat does not keep the process up), so
          // no other dispatcher calls it meanwhile; once the process exits the lease lapses and
          // the entry is delivered again with the same eventId.
          logger.warn({ orders: [...runs.keys()], stopGraceMs: settings.stopGraceMs }, 'Hook calls still running when the outbox stopped: left to finish; delivered again after a restart if they do not');
          return;
        }
        let grace: NodeJS.Timeout | undefined;
        const graceOver = new Promise<void>((resolve) => {
          grace = setTimeout(resolve, Math.min(left, MAX_TIMER_MS));
        });
        await Promise.race([Promise.allSettled([...inFlight]), graceOver]);
        clearTimeout(grace);
      }
    },
    get running() {
      return timer !== null;
    },
  };
}
