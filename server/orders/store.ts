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
import type { SavedCardStore } from './saved-cards.js';
import type { NewEvent, NewOrder, Order, OrderEvent, OrderPatch, OrderState } from './types.js';

export type { CardBrand, NewSavedCard, SavedCard, SavedCardStore } from './saved-cards.js';
export type { Refund, RefundChange, RefundSource, RefundStatus, RefundUpsert } from './refunds.js';

/** What a transition writes besides the order and its event, in the same atomic step. */
export interface TransitionExtras {
  /**
   * Refunds to record (see `RefundUpsert` and `mergeRefunds` for the rule). When present, even
   * empty, the order's `refundedAmount` becomes the sum of its succeeded refund rows after the
   * upsert, whatever the patch says: the refunded amount is derived, never written.
   */
  refunds?: RefundUpsert[];
  /** Hook calls the transition owes; stored only when the transition is. */
  outbox?: NewOutboxEntry[];
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

/** A page of an order's event log: the newest `limit` events below `beforeSeq`; with `dedupeKey`, only the one stored with that key, within those bounds. */
export interface EventPage {
  /** Only events whose `seq` is smaller (a whole number of at least 1). */
  beforeSeq?: number;
  /** At most this many events (a whole number of at least 1), the newest of them. */
  limit?: number;
  /**
   * Only the event stored with this dedupe key (none or one: keys are unique per order). The
   * engine asks this way whether a fact was already recorded, so an index answers it however
   * long the order's log is.
   */
  dedupeKey?: string;
}

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

/** A page of subscriptions: a cursor (`after`, an order id) and a page size. */
export interface SubscriptionListQuery {
  /** Exclusive: only ids greater than this one. */
  after?: string;
  limit: number;
}

/** One hook call owed by a stored change, written in the same transaction as the change. */
export interface NewOutboxEntry {
  /** The hook's name in `OrderHooks`, e.g. `onPaid`. */
  hook: string;
  /** JSON details the hook is called with besides the order (source, from/to, attention reason). */
  payload: Record<string, unknown>;
}

/** `dead`: the dispatcher gave up after its last attempt; kept for staff, never delivered again. */
export type OutboxStatus = 'pending' | 'dead';

export interface OutboxEntry extends NewOutboxEntry {
  /** Unique and never reused: the `eventId` the hook receives, the same on every attempt. */
  id: string;
  orderId: string;
  /** Grows with every entry stored; one order's entries are delivered in this order. */
  position: number;
  /** The order as the transition that owed this call left it (the hook receives this copy). */
  order: Order;
  status: OutboxStatus;
  /** Failed attempts so far. */
  attempts: number;
  /** Not delivered before this. */
  nextAttemptAt: Date;
  lastError: string | null;
  createdAt: Date;
}

/** What a transition stores besides the order and its event, all in the same atomic step. */
export interface OutboxClaim {
  /** Lease owner id (one per dispatcher). */
  owner: string;
  leaseMs: number;
  /** At most this many orders (the order of the oldest due entry first). */
  limit: number;
  /** Only this order's entries. */
  orderId?: string;
}

export interface OutboxFailure {
  /** Why the attempt failed (card-free, short). */
  error: string;
  /** Try again after this many ms; null gives up (status `dead`). */
  retryInMs: number | null;
}

export interface OutboxListQuery {
  status?: OutboxStatus;
  orderId?: string;
  limit: number;
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
   * `extras` are written in the same atomic step, or not at all when the transition is refused:
   * `extras.outbox` entries are stored each with a new unique id, a position after every entry
   * stored before, status `pending`, no attempts, due now, and a copy of the order as this
   * transition leaves it.
   * `known`, optional: the order as this store returned it at `expectedVersion`, unmodified (the
   * copy the caller planned the patch from). A store may compute the result from it instead of
   * reading the row, and read only when the compare-and-set refuses (to return `current`); it is
   * ignored unless its `id` and `version` are `id` and `expectedVersion`. It never changes the
   * outcome: the stored version decides, so a stale copy is refused as a stale version is. A
   * store without this capability ignores the argument.
   */
  transition(id: string, expectedVersion: number, patch: OrderPatch, event?: NewEvent, extras?: TransitionExtras, known?: Order): Promise<TransitionResult>;

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

  /**
   * Required. The events of an order, `seq` ascending; empty for an unknown order. Without
   * `page`, all of them; with it, the newest `page.limit` of those whose `seq` is below
   * `page.beforeSeq` (either may be left out), still `seq` ascending: an order with thousands of
   * events is read a page at a time (the admin's order page). With `page.dedupeKey`, only the
   * event with that key, within the same bounds.
   */
  listEvents(orderId: string, page?: EventPage): Promise<OrderEvent[]>;

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

  /**
   * Optional; subscriptions need it. The child payments of `parentId` (orders created with that
   * `parentId`, e.g. a subscription's deductions), oldest `createdAt` first (ties by id). Empty
   * for an order without children or an unknown id. Without it the kit still records deductions
   * but cannot list them (admin, sweeper).
   */
  listChildren?(parentId: string): Promise<Order[]>;

  /**
   * Optional; the sweeper needs it to find every subscription, however old. First payments
   * (no `parentId`) whose `data.recurringId` is set and whose `data.subscriptionStatus` is absent or
   * `active`, or `cancelled` without `data.subscriptionCancelSettled: true` (the sweeper asks once
   * more after a cancel), in ascending `id` order, only ids greater than `after`, at most `limit`.
   * Without it the sweeper looks only among the newest orders (`sweeper.subscriptionScanLimit`).
   */
  listSubscriptions?(query: SubscriptionListQuery): Promise<Order[]>;

  /**
   * Required. The outbox's claim: picks up to `limit` orders that have a pending entry due now
   * and no pending entry under another owner's unexpired lease, leases every pending entry of
   * those orders (due or not) to `owner` for `leaseMs`, and returns them, `position` ascending.
   * Atomic: two claims, even from two processes sharing a database, never both get an order
   * while its lease lasts. An owner's own leases do not keep it from claiming again.
   */
  claimOutbox(claim: OutboxClaim): Promise<OutboxEntry[]>;

  /** Required. The entry was delivered: it is removed. An unknown id does nothing. */
  completeOutbox(id: string): Promise<void>;

  /**
   * Required. One attempt failed: `attempts` grows by one, `lastError` is kept, the lease is
   * cleared, and the entry is due again after `retryInMs` (or `dead` when that is null).
   * An unknown id does nothing.
   */
  failOutbox(id: string, failure: OutboxFailure): Promise<void>;

  /** Required. Clears `owner`'s leases on the order's pending entries (those it did not try). */
  releaseOutbox(orderId: string, owner: string): Promise<void>;

  /** Required. Entries for staff and metrics, `position` ascending. */
  listOutbox(query: OutboxListQuery): Promise<OutboxEntry[]>;

  /** Required. How many entries are pending and dead. */
  countOutbox(): Promise<Record<OutboxStatus, number>>;

  /**
   * Optional. Saved cards (stored-card tokens) of the shop's shoppers; see `SavedCardStore`.
   * Without it the pay page offers no "save this card" and no saved cards.
   */
  readonly savedCards?: SavedCardStore;

  /** Optional. Releases connections; the store is unusable afterwards. */
  close?(): Promise<void>;
}
