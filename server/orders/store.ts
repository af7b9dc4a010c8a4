/**
 * The storage interface every adapter implements (memory, SQLite, PostgreSQL, or your own).
 * The exported conformance suite checks an adapter against everything documented here.
 *
 * Rules that hold for every method:
 * - Dates are returned as `Date`, amounts as integer minor units, `data` as a fresh JSON copy
 *   (mutating a returned order never changes the store).
 * - Methods reject only for storage failures (ERR_STORE) or the documented conflicts below;
 *   "not found" is `null`, never an exception.
 * - An adapter may refuse input that breaks the model (fractional or negative amounts, unknown
 *   states, a full card number as `maskedCard`) with ERR_VALIDATION, before anything is written.
 */
import type { Refund, RefundUpsert } from './refunds.js';
import type { NewEvent, NewOrder, Order, OrderEvent, OrderPatch, OrderState } from './types.js';

export type { Refund, RefundChange, RefundSource, RefundStatus, RefundUpsert } from './refunds.js';

/** What a transition writes besides the order and its event, in the same atomic step. */
export interface TransitionExtras {
  /**
   * Refunds to record (see `RefundUpsert` and `mergeRefunds` for the rule). When present, even
   * empty, the order's `refundedAmount` becomes the sum of its succeeded refund rows after the
   * upsert, whatever the patch says: the refunded amount is derived, never written.
   */
  refunds?: RefundUpsert[];
}

export interface PendingRefundQuery {
  /** Only rows created strictly before this. */
  createdBefore: Date;
  /** At most this many, oldest first. */
  limit: number;
}

export type TransitionResult =
  | { ok: true; order: Order; event: OrderEvent | null }
  /** The order's version was not `expectedVersion` (someone else won) or the order is gone. */
  | { ok: false; current: Order | null };

export type AppendResult =
  | { appended: true; event: OrderEvent }
  /** An event with the same dedupe key already exists for this order: nothing was written. */
  | { appended: false; existing: OrderEvent };

export interface DueQuery {
  /** States the sweeper settles (e.g. pending, requires_action). */
  states: readonly OrderState[];
  /** Only orders whose `updatedAt` is strictly before this. */
  updatedBefore: Date;
  /** At most this many, oldest `updatedAt` first. */
  limit: number;
}

export interface ClaimDue extends DueQuery {
  /** Lease owner id (one per process/sweeper). */
  owner: string;
  leaseMs: number;
}

export interface ListQuery {
  states?: readonly OrderState[];
  /** Inclusive. */
  createdFrom?: Date;
  /** Exclusive, so consecutive ranges never share an order. */
  createdTo?: Date;
  /** true: only orders flagged for attention; false: only unflagged ones; absent: both. */
  attention?: boolean;
  limit: number;
  offset?: number;
}

export interface OrderStore {
  /**
   * Required. Stores a new order at version 0 (state `created` unless given).
   * Rejects with KitError ERR_ORDER_EXISTS when `orderNo` or `id` is taken.
   */
  create(order: NewOrder): Promise<Order>;

  /** Required. */
  get(id: string): Promise<Order | null>;
  /** Required. */
  getByOrderNo(orderNo: string): Promise<Order | null>;
  /** Required. Null when no order has this transaction id. */
  getByTransactionId(transactionId: string): Promise<Order | null>;

  /**
   * Required. Compare-and-set: applies `patch` and increments `version` only when the stored
   * version equals `expectedVersion`; appends `event` (when given) in the same atomic step, so
   * a transition is never stored without its event or the reverse. `updatedAt` becomes now.
   * If the event has a dedupe key that already exists for the order, the whole transition is
   * refused as a conflict (`ok: false`).
   * `extras` are written in the same atomic step, or not at all when the transition is refused.
   */
  transition(id: string, expectedVersion: number, patch: OrderPatch, event?: NewEvent, extras?: TransitionExtras): Promise<TransitionResult>;

  /** Required. The order's refund rows, oldest `createdAt` first (ties by id). Empty for an unknown order. */
  listRefunds(orderId: string): Promise<Refund[]>;

  /**
   * Required. Pending refund rows of every order created before `createdBefore`, oldest first:
   * refunds staff started whose answer was lost, for the sweeper to settle by refund search.
   */
  listPendingRefunds(query: PendingRefundQuery): Promise<Refund[]>;

  /**
   * Required. Appends an event without changing the order. With a `dedupeKey` that already
   * exists for this order nothing is written and `appended: false` returns the existing event.
   * Rejects with ERR_ORDER_NOT_FOUND when the order does not exist.
   */
  appendEvent(orderId: string, event: NewEvent): Promise<AppendResult>;

  /** Required. All events of an order, `seq` ascending. Empty for an unknown order. */
  listEvents(orderId: string): Promise<OrderEvent[]>;

  /**
   * Required. Takes or renews the per-order lease: succeeds when there is no lease, the lease
   * has expired, or `owner` already holds it (the expiry is then extended to now + ttlMs).
   * Returns false when another owner holds an unexpired lease or the order does not exist.
   */
  acquireLease(orderId: string, owner: string, ttlMs: number): Promise<boolean>;

  /** Required. Releases the lease if `owner` holds it; otherwise does nothing. */
  releaseLease(orderId: string, owner: string): Promise<void>;

  /**
   * Required. Lists orders in `states`, updated before `updatedBefore`, oldest first, that are
   * not under an unexpired lease. Read-only.
   */
  listDue(query: DueQuery): Promise<Order[]>;

  /**
   * Required. Like `listDue`, but atomically leases every order it returns to `owner` for
   * `leaseMs`, so two sweepers (even in two processes sharing a database) never get the same
   * order while the lease lasts.
   */
  claimDue(query: ClaimDue): Promise<Order[]>;

  /** Required. Orders for staff lists, newest `createdAt` first. */
  list(query: ListQuery): Promise<Order[]>;

  /** Optional. Releases connections; the store is unusable afterwards. */
  close?(): Promise<void>;
}
