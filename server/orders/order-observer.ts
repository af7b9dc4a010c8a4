/**
 * What the order side (reconcile engine, sweeper, hook outbox) reports as it works. It knows
 * nothing of Prometheus: the kit's observer (observability/observer.ts) implements this, and a
 * part given none reports nothing.
 */
import { STEP_RESULT_CODES } from '../gateway/codes.js';
import type { StoredChange } from './hooks.js';
import type { Order, PaymentMethodKind } from './types.js';

export interface SweepFigures {
  settled: number;
  expired: number;
  errors: number;
  /** The revisit round's: settled orders a missed change at the gateway moved, and its errors. */
  revisits?: { changed: number; errors: number };
}

export interface OrderObserver {
  /**
   * A payment reached a final state (paid, authorized, declined, failed, cancelled, expired).
   * `resultCode` is the gateway's result code when it gave one (e.g. `0051`), `createdAt` the order's.
   */
  paymentFinished(method: PaymentMethodKind | null, state: string, resultCode: string | null, createdAt: Date): void;
  sweepFinished(figures: SweepFigures): void;
  hookFailed(hook: string, gaveUp: boolean): void;
}

/** States a payment ends in for the payments-finished count (later refunds are not a new outcome). */
export const FINISHED_STATES: ReadonlySet<string> = new Set(['paid', 'authorized', 'declined', 'failed', 'cancelled', 'expired']);

/** What the reconcile engine reports after a stored change: a payment that reached a final state. */
export function reportChange(observer: OrderObserver | undefined, order: Order | null, change: StoredChange | undefined): void {
  const to = change?.transition?.to;
  if (observer === undefined || order === null || to === undefined || !FINISHED_STATES.has(to)) return;
  const code = order.data.resultCode;
  // The code an earlier step left (e.g. 0200 "authentication required") is no reason for the end:
  // a return's query declines without a code, and the refusal's own code arrives after the count.
  const outcome = typeof code === 'string' && !STEP_RESULT_CODES.has(code.slice(0, 4)) ? code : null;
  observer.paymentFinished(order.method, to, outcome, order.createdAt);
}
