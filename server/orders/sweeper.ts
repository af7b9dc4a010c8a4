/**
 * The sweeper settles orders left open: it claims orders stuck in pending or requires_action
 * (an order reaches pending only by being submitted to the gateway, so a `created` one never did
 * and is left alone), asks the gateway about them in batches of at most 100, and applies each
 * answer through the reconcile engine. An order is expired locally only when the gateway, asked
 * in this run, does not know it and it is old enough. An order is released as soon as its answer
 * changed it; unchanged ones stay leased until the run ends. The next batch is claimed and asked
 * about while the current one settles, so the gateway and the store work at the same time.
 * Each run ends with the refund round (sweeper-refunds.ts): pending refunds whose answer was lost,
 * the capture, subscription and revisit rounds (settled orders the gateway changed without a
 * notification reaching the shop, sweeper-revisits.ts).
 */
import { randomUUID } from 'node:crypto';
import { ConfigError } from '../errors.js';
import { redact, silentLogger } from '../logging.js';
import type { Logger } from '../logging.js';
import type { OrderObserver } from './order-observer.js';
import { inSpan } from '../tracing.js';
import { factFromAnswer } from './engine-facts.js';
import type { ApplyResult, GatewayOrderFact, GatewayPort, ReconcileEngine } from './engine-types.js';
import type { OrderStore } from './store.js';
import { sweepPendingRefunds } from './sweeper-refunds.js';
import type { RefundSweepReport } from './sweeper-refunds.js';
import { sweepSubscriptions, type SubscriptionCursor, type SubscriptionSweepReport } from './sweeper-subscriptions.js';
import { newCreationCursor } from './creation-pages.js';
import { sweepCaptureClaims, type CaptureCursor, type CaptureSweepReport } from './sweeper-captures.js';
import { revisitSettledOrders, type RevisitCursor, type RevisitSweepReport } from './sweeper-revisits.js';

export type { RefundSweepReport } from './sweeper-refunds.js';
import type { Order, OrderState } from './types.js';
import { QUERY_LIST_MAX_ENTRIES } from '../gateway/schemas/queries.js';

/** Submitted and still open. `created` is not here: such an order never reached the gateway. */
export const SWEPT_STATES: readonly OrderState[] = ['pending', 'requires_action'];

export interface SweeperOptions {
  engine: ReconcileEngine;
  store: OrderStore;
  gateway: GatewayPort;
  /** Lease owner; unique per process. Defaults to a random id. */
  owner?: string;
  /** Pause between runs. Default 30 s. */
  intervalMs?: number;
  /** An open order is swept once unchanged for this long. Default 2 min. */
  stuckAfterMs?: number;
  /** An order the gateway does not know is expired once unchanged for this long. Default 30 min. */
  expireAfterMs?: number;
  /** Orders per claim and per query, 1–100. Default 100. */
  batchSize?: number;
  /** How long claimed orders may stay leased to this sweeper; covers one run. Default 60 s. */
  leaseMs?: number;
  /** A pending refund (its answer lost) is looked up in the refund search once this old. Default 2 min. */
  refundSettleAfterMs?: number;
  /** A pending refund the refund search still does not show once this old becomes failed. Default 1 h. */
  refundFailAfterMs?: number;
  /** Live subscriptions each run asks the gateway about, paging through all of them run after run (a store without `listSubscriptions`: the newest orders looked at). Default 500. */
  subscriptionScanLimit?: number;
  /** Settled orders (authorized, paid, refunded in part or in full, charged back) created this recently are asked about again (at most 100 years). Default 120 days. */
  revisitWithinMs?: number;
  /** A new pass over those orders starts at most this often. Default 1 h. */
  revisitEveryMs?: number;
  /** Settled orders each run reads for the revisit round (one query call per `batchSize`); 0 turns it off. Default 500. */
  revisitLimit?: number;
  logger?: Logger;
  now?: () => Date;
  /** Told of every run's figures (metrics). */
  observer?: OrderObserver;
}

export interface SweepReport {
  /** Orders this run claimed and asked the gateway about. */
  claimed: number;
  /** Gateway query calls made. */
  queries: number;
  /** The gateway's answer changed the order's state (to anything but expired). */
  settled: number;
  /** Expired: by the gateway's answer, or locally after a final query found nothing. */
  expired: number;
  /** Still open: same answer as before, too young to expire, or leased by someone else. */
  unchanged: number;
  /** Query failures (counted per order), mismatches, rejections and unexpected errors. */
  errors: number;
  /** Present when the run found pending refunds to settle by refund search. */
  refunds?: RefundSweepReport;
  /** Present when the run looked at active subscriptions (deductions whose notification was lost). */
  subscriptions?: SubscriptionSweepReport;
  /** Present when the run found authorised orders whose capture answer was lost. */
  captures?: CaptureSweepReport;
  /** Present when the run asked about settled orders again (changes made at the gateway whose notification was lost). */
  revisits?: RevisitSweepReport;
}

export interface Sweeper {
  /** Starts periodic runs (timers are unref'd, so they never keep the process alive). */
  start(): void;
  /** Stops the timer and waits for a run in progress to finish. */
  stop(): Promise<void>;
  /** One run now; if a run is in progress, its report (runs never overlap). */
  runOnce(): Promise<SweepReport>;
}

interface ClaimedBatch {
  /** The claim returned a whole batch: more orders may be due. */
  full: boolean;
  /** Orders not claimed before in this run. */
  fresh: Order[];
  /** The gateway's answers for `fresh`; null when there are none or the query failed. */
  answers: Promise<Map<string, GatewayOrderFact> | null>;
}

function positive(name: string, value: number, max = Number.MAX_SAFE_INTEGER, min = 1): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`sweeper.${name}`, `must be a whole number from ${min} to ${max}`, `set sweeper.${name} to a whole number from ${min} to ${max}`);
  }
  return value;
}

/** The most settled orders one run may read for the revisit round. */
export const REVISIT_LIMIT_MAX = 100_000;
/** The longest revisit window, 100 years: a longer one would reach before the dates a store can hold. */
export const REVISIT_WITHIN_MAX_MS = 100 * 365 * 24 * 3_600_000;

export function createSweeper(options: SweeperOptions): Sweeper {
  const { engine, store, gateway } = options;
  const owner = options.owner ?? `sweeper-${randomUUID()}`;
  const intervalMs = positive('intervalMs', options.intervalMs ?? 30_000);
  const stuckAfterMs = positive('stuckAfterMs', options.stuckAfterMs ?? 120_000);
  const expireAfterMs = positive('expireAfterMs', options.expireAfterMs ?? 1_800_000);
  const batchSize = positive('batchSize', options.batchSize ?? QUERY_LIST_MAX_ENTRIES, QUERY_LIST_MAX_ENTRIES);
  const leaseMs = positive('leaseMs', options.leaseMs ?? 60_000);
  const refundSettleAfterMs = positive('refundSettleAfterMs', options.refundSettleAfterMs ?? 120_000);
  const refundFailAfterMs = positive('refundFailAfterMs', options.refundFailAfterMs ?? 3_600_000);
  const subscriptionScanLimit = positive('subscriptionScanLimit', options.subscriptionScanLimit ?? 500);
  const subscriptionCursor: SubscriptionCursor = { after: undefined };
  const captureCursor: CaptureCursor = newCreationCursor();
  const revisitWithinMs = positive('revisitWithinMs', options.revisitWithinMs ?? 120 * 24 * 3_600_000, REVISIT_WITHIN_MAX_MS);
  const revisitEveryMs = positive('revisitEveryMs', options.revisitEveryMs ?? 3_600_000);
  const revisitLimit = positive('revisitLimit', options.revisitLimit ?? 500, REVISIT_LIMIT_MAX, 0);
  const revisitCursor: RevisitCursor = { ...newCreationCursor(), passStartedAt: null };
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? ((): Date => new Date());

  let running: Promise<SweepReport> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let started = false;
  let stopping = false;

  /** Time since the order last changed or was sent to the gateway, whichever is later. */
  function idleMs(order: Order): number {
    const submitted = typeof order.data.submittedAt === 'string' ? Date.parse(order.data.submittedAt) : NaN;
    const last = Math.max(order.updatedAt.getTime(), Number.isNaN(submitted) ? 0 : submitted);
    return now().getTime() - last;
  }

  /**
   * Releases the order's lease now when the answer changed it: its updatedAt is now, so it is no
   * longer due and the next claim cannot return it, while a notification or the shopper's answer
   * for it need not wait for the end of the run. An unchanged order stays leased: it is still
   * due, and the lease is what makes the next claim return the next orders.
   */
  async function releaseIfChanged(order: Order, result: ApplyResult, held: Set<string>): Promise<void> {
    if (result.order === null || result.order.version === order.version) return;
    try {
      await store.releaseLease(order.id, owner);
      held.delete(order.id);
    } catch (error) {
      // Left in `held`: released again when the run ends, or it expires.
      logger.warn({ err: redact(error), orderId: order.id }, 'Sweeper could not release a lease; retried at the end of the run');
    }
  }

  function count(result: ApplyResult, report: SweepReport): void {
    if (result.status === 'applied') {
      if (result.order?.state === 'expired') report.expired++;
      else report.settled++;
    } else if (result.status === 'noop' || result.status === 'duplicate' || result.status === 'busy') {
      report.unchanged++;
    } else {
      report.errors++;
      logger.warn({ orderId: result.order?.id, status: result.status, reason: result.reason }, 'Sweeper could not settle an order');
    }
  }

  /** The gateway's answers for a batch, or null when the query failed (never rejects). */
  async function queryBatch(orders: Order[], report: SweepReport): Promise<Map<string, GatewayOrderFact> | null> {
    try {
      report.queries++;
      return await gateway.queryOrders(orders.map((o) => o.orderNo));
    } catch (error) {
      // Left for the next run: never expire an order the gateway could not be asked about.
      report.errors += orders.length;
      logger.warn({ err: redact(error), orders: orders.length }, 'Sweeper query failed; orders left for the next run');
      return null;
    }
  }

  async function settleBatch(orders: Order[], answers: Map<string, GatewayOrderFact>, report: SweepReport, held: Set<string>): Promise<void> {
    // The orders of a batch are distinct and leased to this sweeper: settled side by side, their
    // writes share the store's commits (group commit) instead of three commits each in a row.
    // Each is applied from the copy the claim returned (read under this sweeper's lease), not read again.
    await Promise.all(orders.map(async (order) => {
      try {
        const answer = answers.get(order.orderNo);
        let result: ApplyResult | null = null;
        if (answer) {
          result = await engine.apply(factFromAnswer(order.id, answer, 'sweeper', 'sweeper'), { leaseOwner: owner, known: order });
        } else if (idleMs(order) > expireAfterMs) {
          const fact = {
            orderId: order.id,
            source: 'sweeper' as const,
            actor: 'sweeper',
            outcome: 'expired' as const,
            data: { reason: 'the gateway did not know the order at the final query' },
          };
          result = await engine.apply(fact, { leaseOwner: owner, known: order });
        }
        if (result === null) {
          report.unchanged++;
        } else {
          count(result, report);
          await releaseIfChanged(order, result, held);
        }
      } catch (error) {
        report.errors++;
        logger.error({ err: redact(error), orderId: order.id }, 'Sweeper failed to apply an answer');
      }
    }));
  }

  async function sweep(): Promise<SweepReport> {
    const report: SweepReport = { claimed: 0, queries: 0, settled: 0, expired: 0, unchanged: 0, errors: 0 };
    /** Every order claimed in this run, so a second claim of one is never settled twice. */
    const claimed = new Set<string>();
    /** Claimed orders still leased to this sweeper: the unchanged ones, released when the run ends. */
    const held = new Set<string>();
    const updatedBefore = new Date(now().getTime() - stuckAfterMs);
    /** Claims the next batch and starts its query (which never rejects). */
    const claimNext = async (): Promise<ClaimedBatch> => {
      const batch = await store.claimDue({ states: SWEPT_STATES, updatedBefore, limit: batchSize, owner, leaseMs });
      const fresh = batch.filter((o) => !claimed.has(o.id));
      for (const o of batch) {
        claimed.add(o.id);
        held.add(o.id);
      }
      report.claimed += fresh.length;
      return { full: batch.length === batchSize, fresh, answers: fresh.length === 0 ? Promise.resolve(null) : queryBatch(fresh, report) };
    };
    let next: Promise<ClaimedBatch> | null = null;
    try {
      // Unchanged orders stay leased until the run ends, so each claim returns the next ones;
      // changed ones are no longer due (updatedAt is now) and are released at once.
      next = claimNext();
      while (next !== null) {
        const current: ClaimedBatch = await next;
        next = null;
        if (current.fresh.length === 0) break;
        // A full batch means more may be due: the next one is claimed and asked about while this
        // one settles, so the gateway answers while the store writes. A short batch means nothing
        // else is due; stop() ends the run after the batches already claimed.
        if (current.full && !stopping) {
          next = claimNext();
          // Awaited at the top of the loop or in `finally`; a failed claim must not go unhandled meanwhile.
          next.catch(() => undefined);
        }
        const answers = await current.answers;
        if (answers !== null) {
          const batch = current.fresh;
          await inSpan('sweeper batch', { 'checkout.sweeper.orders': batch.length }, () => settleBatch(batch, answers, report, held));
        }
      }
    } finally {
      // A claim still in flight adds to `held`: let it land so its leases are released too.
      if (next !== null) {
        const late = await next.catch(() => null);
        await late?.answers;
      }
      // A batch at a time: one promise per claimed order at once would hold a run's worth of
      // them in memory (100,000 orders: ~100 MB).
      const ids = [...held];
      for (let i = 0; i < ids.length; i += batchSize) {
        await Promise.all(
          ids.slice(i, i + batchSize).map((id) =>
            store.releaseLease(id, owner).catch((error: unknown) => {
              logger.warn({ err: redact(error), orderId: id }, 'Sweeper could not release a lease; it will expire');
            }),
          ),
        );
      }
    }
    try {
      const refunds = await sweepPendingRefunds({
        engine, store, gateway, logger, now, limit: batchSize, settleAfterMs: refundSettleAfterMs, failAfterMs: refundFailAfterMs,
      });
      if (refunds !== null) report.refunds = refunds;
    } catch (error) {
      report.errors++;
      logger.error({ err: redact(error) }, 'Sweeper could not look at pending refunds');
    }
    try {
      const captures = await sweepCaptureClaims({ engine, store, logger, now, stuckAfterMs, scanLimit: subscriptionScanLimit, cursor: captureCursor });
      if (captures !== null) report.captures = captures;
    } catch (error) {
      report.errors++;
      logger.error({ err: redact(error) }, 'Sweeper could not look at capture claims');
    }
    try {
      const subscriptions = await sweepSubscriptions({ engine, store, gateway, logger, scanLimit: subscriptionScanLimit, cursor: subscriptionCursor });
      if (subscriptions !== null) report.subscriptions = subscriptions;
    } catch (error) {
      report.errors++;
      logger.error({ err: redact(error) }, 'Sweeper could not look at subscriptions');
    }
    try {
      const revisits = await revisitSettledOrders({
        engine, store, gateway, logger, now, stuckAfterMs, batchSize, cursor: revisitCursor,
        withinMs: revisitWithinMs, everyMs: revisitEveryMs, limit: revisitLimit,
      });
      if (revisits !== null) report.revisits = revisits;
    } catch (error) {
      report.errors++;
      logger.error({ err: redact(error) }, 'Sweeper could not revisit settled orders');
    }
    options.observer?.sweepFinished(report);
    if (report.claimed > 0 || report.errors > 0 || report.refunds !== undefined || (report.revisits?.changed ?? 0) > 0) logger.info({ ...report }, 'Sweeper run finished');
    return report;
  }

  function runOnce(): Promise<SweepReport> {
    running ??= sweep().finally(() => {
      running = null;
    });
    return running;
  }

  function schedule(): void {
    // One pending timer at most, even when start() follows stop() during a run.
    if (!started || timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      runOnce()
        .catch((error: unknown) => {
          logger.error({ err: redact(error) }, 'Sweeper run failed');
        })
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  }

  return {
    start() {
      if (started) return;
      started = true;
      stopping = false;
      schedule();
    },
    async stop() {
      started = false;
      stopping = true;
      if (timer) clearTimeout(timer);
      timer = null;
      if (running) await running.catch(() => undefined);
      stopping = false;
    },
    runOnce,
  };
}
