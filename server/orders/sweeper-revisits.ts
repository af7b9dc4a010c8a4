/**
 * The sweeper's revisit round: money can move at the gateway after an order is settled without
 * the kit asking (a refund, capture or cancel made in the merchant portal, a chargeback), and the
 * shop learns of it only from a notification. When that notification never lands (dropped, or its
 * retries exhausted) nothing else would record it. So the orders where money can still move or
 * refunds can still be listed (authorized, paid, partially_refunded, refunded, chargeback),
 * created within `withinMs`, are asked about again by
 * query, a page per run and the whole list at most once per `everyMs`, and every answer goes
 * through the engine as a query answer would: a refund the ledger misses is recorded, a capture,
 * cancel or chargeback moves the order. An order the gateway does not know is never changed.
 */
import type { Logger } from '../logging.js';
import { redact } from '../logging.js';
import { nextPageByCreation, type CreationCursor } from './creation-pages.js';
import { factFromAnswer } from './engine-facts.js';
import type { GatewayPort, ReconcileEngine } from './engine-types.js';
import { requestedCaptureOf } from './state-machine.js';
import type { OrderStore } from './store.js';
import type { Order, OrderState } from './types.js';

/**
 * Settled states where the gateway can still move money without the kit: capture, cancel, refund,
 * a chargeback (after a full refund too), and refunds listed on a charged-back order.
 */
export const REVISITED_STATES: readonly OrderState[] = ['authorized', 'paid', 'partially_refunded', 'refunded', 'chargeback'];

/** What one run of the revisit round did: settled orders asked about again, and what their answers changed. */
export interface RevisitSweepReport {
  /** Orders asked about again. */
  checked: number;
  /** Query calls made for them (each may bring one refund search more, for refunded and charged-back orders). */
  queries: number;
  /** Orders the answer changed (a move, refunds or details written): a change at the gateway whose notification the shop had missed. */
  changed: number;
  /** Orders the gateway did not know (left as they are, logged: a sign of a mixed-up account). */
  unknown: number;
  /** Failed queries (counted per order), rejections and unexpected errors. */
  errors: number;
}

/** Where the round is in the list of revisited orders; kept by the sweeper between runs. */
export interface RevisitCursor extends CreationCursor {
  /** When the current pass started (business clock, ms); null before the first. */
  passStartedAt: number | null;
}

export interface RevisitSweepOptions {
  engine: ReconcileEngine;
  store: OrderStore;
  gateway: GatewayPort;
  logger: Logger;
  now: () => Date;
  /** Orders created longer ago than this are no longer revisited. */
  withinMs: number;
  /** A new pass over the list starts at most this often. */
  everyMs: number;
  /** Orders read per run (a page); 0 turns the round off. */
  limit: number;
  /** Orders per query call. */
  batchSize: number;
  /** An order changed more recently than this is left to its own answer or notification. */
  stuckAfterMs: number;
  cursor: RevisitCursor;
}

/** Null when the round did not run (off, between passes, or nothing created within the window). */
export async function revisitSettledOrders(o: RevisitSweepOptions): Promise<RevisitSweepReport | null> {
  if (o.limit === 0) return null;
  const at = o.now().getTime();
  const { cursor } = o;
  if (cursor.before === null) {
    if (cursor.passStartedAt !== null && at - cursor.passStartedAt < o.everyMs) return null;
    cursor.passStartedAt = at;
  }
  const fresh = await nextPageByCreation(o.store, { states: REVISITED_STATES, createdFrom: new Date(at - o.withinMs), limit: o.limit }, cursor);
  // A capture claim is the capture round's (its answer may be on its way); a recent change may
  // still have its notification coming.
  const due = fresh.filter((order) => order.updatedAt.getTime() <= at - o.stuckAfterMs && requestedCaptureOf(order) === undefined);
  if (due.length === 0) return null;
  const report: RevisitSweepReport = { checked: due.length, queries: 0, changed: 0, unknown: 0, errors: 0 };
  for (let i = 0; i < due.length; i += o.batchSize) {
    await revisitBatch(o, due.slice(i, i + o.batchSize), report);
  }
  if (report.unknown > 0) {
    o.logger.warn({ orders: report.unknown }, 'The gateway does not know orders the shop holds as settled; left as they are (check gateway.merchantId and accountId)');
  }
  return report;
}

async function revisitBatch(o: RevisitSweepOptions, batch: Order[], report: RevisitSweepReport): Promise<void> {
  let answers;
  try {
    report.queries++;
    answers = await o.gateway.queryOrders(batch.map((order) => order.orderNo));
  } catch (error) {
    // Left for the next pass: nothing is concluded from a query that did not answer.
    report.errors += batch.length;
    o.logger.warn({ err: redact(error), orders: batch.length }, 'Sweeper query failed; settled orders left for the next pass');
    return;
  }
  // Distinct orders: applied side by side, their writes share the store's commits.
  await Promise.all(batch.map(async (order) => {
    const answer = answers.get(order.orderNo);
    if (answer === undefined) {
      report.unknown++;
      return;
    }
    try {
      const result = await o.engine.apply(factFromAnswer(order.id, answer, 'sweeper', 'sweeper'), { known: order });
      // Refund rows or details written where the state stays count too (a noop that wrote its event:
      // the sweeper's facts carry no dedupe key, so nothing else writes one).
      if (result.status === 'applied' || (result.status === 'noop' && result.event !== undefined)) report.changed++;
      if (result.status === 'rejected' || result.status === 'mismatch' || result.status === 'not_found') {
        report.errors++;
        o.logger.warn({ orderId: order.id, status: result.status, reason: result.reason }, 'Sweeper could not apply the gateway\'s answer to a settled order');
      }
    } catch (error) {
      report.errors++;
      o.logger.error({ err: redact(error), orderId: order.id }, 'Sweeper failed to revisit a settled order');
    }
  }));
}
