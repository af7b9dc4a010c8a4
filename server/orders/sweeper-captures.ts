/**
 * The sweeper's capture round: an authorised order still holding a capture claim
 * (`requestedCapture`) untouched for `stuckAfterMs` is a capture whose answer was lost, and whose
 * notification has not come either. It is settled by query as a query sync would: the gateway's
 * `approved` records the claimed amount, its `authorized` withdraws the claim.
 */
import type { Logger } from '../logging.js';
import { redact } from '../logging.js';
import { nextPageByCreation, type CreationCursor } from './creation-pages.js';
import type { ReconcileEngine } from './engine-types.js';
import { requestedCaptureOf } from './state-machine.js';
import type { OrderStore } from './store.js';

export interface CaptureSweepReport {
  /** Authorised orders with a stale capture claim asked about. */
  checked: number;
  /** Of those, the ones whose claim the gateway's answer settled (captured or withdrawn). */
  settled: number;
}

export interface CaptureSweepOptions {
  engine: ReconcileEngine;
  store: OrderStore;
  logger: Logger;
  now: () => Date;
  /** A claim younger than this may still be on its way: it is left alone. */
  stuckAfterMs: number;
  /** Authorised orders looked at per round. */
  scanLimit: number;
  /** Where the last round's page of authorised orders ended; kept by the sweeper between rounds. */
  cursor: CaptureCursor;
}

/** Where the round is among the authorised orders (newest first); kept by the sweeper between rounds. */
export type CaptureCursor = CreationCursor;

/** Null when no authorised order holds a stale capture claim. */
export async function sweepCaptureClaims(o: CaptureSweepOptions): Promise<CaptureSweepReport | null> {
  const before = o.now().getTime() - o.stuckAfterMs;
  // Page after page, round after round, so an old authorisation behind many newer ones is still
  // looked at; the last page ends the list and the next round starts again from the newest.
  const page = await nextPageByCreation(o.store, { states: ['authorized'], limit: o.scanLimit }, o.cursor);
  const claimed = page.filter((order) => requestedCaptureOf(order) !== undefined && order.updatedAt.getTime() <= before);
  if (claimed.length === 0) return null;
  const report: CaptureSweepReport = { checked: claimed.length, settled: 0 };
  for (const order of claimed) {
    try {
      const result = await o.engine.confirm(order.id, 'sweeper', 'sweeper');
      if (result.order !== null && (result.order.state !== 'authorized' || requestedCaptureOf(result.order) === undefined)) report.settled++;
    } catch (error) {
      o.logger.warn({ err: redact(error), orderId: order.id }, 'Sweeper could not settle a capture claim');
    }
  }
  return report;
}
