/**
 * Types of the reconcile engine: the facts it accepts, what it answers, the shop's hooks and
 * the one gateway capability it needs (query by order number).
 */
import type { PaymentOutcome } from '../gateway/codes.js';
import type { Logger } from '../logging.js';
import type { OrderObserver } from './order-observer.js';
import type { RefundStatus } from './refunds.js';
import type { OrderHooks } from './hooks.js';
import type { OutboxDispatcher, OutboxDispatcherOptions } from './outbox-dispatcher.js';
import type { AppendResult, OrderStore } from './store.js';
import type { FactSource, NewEvent, Order, OrderEvent, PaymentMethodKind } from './types.js';

/** What the gateway's query operation says about one order. Amounts in minor units. */
export interface GatewayOrderFact {
  orderNo: string;
  transactionId: string | null;
  outcome: PaymentOutcome;
  amount: number;
  currency: string;
  maskedCard?: string | null;
  /**
   * The gateway's refunds of this order, each with its reference (the kit's port fills it from
   * the refund search): recorded in the ledger, so a query sync repairs what a lost answer or
   * notification missed.
   */
  refunds?: RefundReport[];
  /**
   * A refunded total without references (a port that cannot list refunds): never written. When
   * it differs from the ledger's total the order is flagged for attention.
   */
  refundedAmount?: number;
  /**
   * The subscription this payment started (`subscription_result` of the first payment, not a
   * deduction's): kept on the order, so a payment finished on the hosted page or after 3-D
   * Secure is found as a subscription like a direct one.
   */
  subscription?: GatewayPaymentSubscription;
}

/** What a first payment's answer or notification tells of the subscription it started. */
export interface GatewayPaymentSubscription {
  recurringId: string;
  contractName: string | null;
  /** `recurring_deduction_period` as reported, e.g. `1 month`. */
  period: string | null;
}

/** One refund as a fact reports it: recorded in the order's refund ledger (see refunds.ts). */
export interface RefundReport {
  /** A row the caller created earlier (a staff refund's pending row) that this report settles. */
  id?: string;
  /** The gateway's `refund_reference_id` (`<transaction_id>-NN`). */
  referenceId?: string | null;
  /** The gateway's `refund_reference`. */
  reference?: string | null;
  /** Minor units. */
  amount: number;
  /** Defaults to the order's currency. */
  currency?: string;
  status: RefundStatus;
}

/** The engine's view of the gateway. Implementations chunk to the gateway's limit of 100. */
export interface GatewayPort {
  /**
   * Answers only for the orders the gateway knows; an absent key means "not known". Rejects when
   * the gateway could not be asked, or when refunded orders' refunds could not be listed.
   */
  queryOrders(orderNos: string[]): Promise<Map<string, GatewayOrderFact>>;
  /**
   * The gateway's successful refunds of each order, by reference (refund search); every order
   * asked about has an entry, empty when it has none. Rejects when the search fails. Optional:
   * without it the sweeper cannot settle refunds whose answer was lost.
   */
  searchRefunds?(orderNos: string[]): Promise<Map<string, RefundReport[]>>;
  /**
   * Every transaction the query lists under each order number that carries a subscription
   * (`subscription_result` with a recurring id): the first payment and its deductions, oldest
   * first. Orders without one have no entry. Rejects when the query fails. Optional: without it
   * the sweeper cannot find deductions whose notification was lost.
   */
  querySubscriptions?(orderNos: string[]): Promise<Map<string, GatewaySubscriptionTransaction[]>>;
}

/** One transaction of a subscription as the query reports it (`subscription_result`). */
export interface GatewaySubscriptionTransaction {
  transactionId: string;
  outcome: PaymentOutcome;
  /** Minor units. */
  amount: number;
  currency: string;
  recurringId: string;
  /** `recurring_status`: `1` while the subscription is active. */
  recurringStatus: string | null;
  contractName: string | null;
  period: string | null;
  /** `recurring_deduction_time` (`YYYY-MM-DD`): the next deduction on the first payment, the deduction's own date on a deduction. */
  time: string | null;
}

/** One claim about a payment, from any entry point. */
export interface PaymentFact {
  /** At least one of orderId, orderNo, transactionId; tried in that order. */
  orderId?: string;
  orderNo?: string;
  transactionId?: string | null;
  source: FactSource;
  outcome: PaymentOutcome;
  /** When given, checked against the order: a mismatch is recorded and never applied. */
  amount?: number;
  currency?: string;
  /** Masked only (e.g. 424242******4242); a full card number is refused. */
  maskedCard?: string | null;
  /**
   * A cumulative refunded total the source reports without references. Never written: the
   * order's refunded amount is derived from its refund ledger; a total that differs from the
   * ledger's flags the order for attention.
   */
  refundedAmount?: number;
  /**
   * Refunds this fact reports, recorded in the order's refund ledger in the same atomic step as
   * the transition; the refunded amount and the paid / partially_refunded / refunded state are
   * then derived from the succeeded rows. The same refund reported again changes nothing. A new
   * pending row (a staff refund about to be sent) is refused when it is more than what remains
   * refundable after succeeded and pending refunds.
   */
  refunds?: RefundReport[];
  /**
   * Every successful refund the gateway has for the order (a refund search: what the kit's port
   * gives with a query answer), recorded like `refunds`, except on an order whose ledger holds a
   * total carried over from before the ledger (an `import` row): that total already counts
   * them, so references the ledger does not hold are not recorded from this list, and a listed
   * total that differs flags the order.
   */
  listedRefunds?: RefundReport[];
  capturedAmount?: number;
  /** Same key twice for one order → `duplicate` (e.g. a notification's dedupe key). */
  dedupeKey?: string;
  actor?: string;
  /** Card-free details kept on the event. */
  data?: Record<string, unknown>;
  /**
   * Card-free details shallow-merged into `order.data` in the same compare-and-set as the
   * transition (e.g. resultCode, resultText). When the fact is a noop because the order is
   * already in the state it reports, changed keys are merged in a write of their own; a late
   * fact's details are dropped. `attentionAt` and `authorizationReleased` belong to the engine.
   */
  orderData?: Record<string, unknown>;
  /**
   * A reason for staff to look at the order, merged into `order.attention` (mergeAttention) with
   * the transition, or in a write of its own with an `attention` event when the state does not
   * change. `onAttention` fires once, when the reason is new.
   */
  attention?: string;
  /** Ask the gateway before applying an outcome that moves money or ends the payment. */
  confirm?: boolean;
  /**
   * The payment method, stored in `order.method` by the same compare-and-set as the transition
   * (the pay route's submission). Ignored when the fact writes nothing.
   */
  method?: PaymentMethodKind;
}

export type ApplyStatus = 'applied' | 'duplicate' | 'noop' | 'mismatch' | 'rejected' | 'not_found' | 'busy';

export interface ApplyResult {
  status: ApplyStatus;
  /** The order after the call; null only for `not_found`. */
  order: Order | null;
  /** The event written by this call, if any. */
  event?: OrderEvent;
  /** Why nothing was applied (noop, rejected, mismatch, busy…). */
  reason?: string;
  /**
   * True when confirmation was asked for and the gateway did not confirm the claim: it did not
   * know the order (nothing applied), or its answer has not caught up with the claim (the answer
   * was applied for what it says, e.g. requires_action, declined). Either way the fact's dedupe
   * key was not recorded, so the same claim retried later is applied once the gateway confirms it.
   */
  unconfirmed?: boolean;
}

export interface ApplyOptions {
  /**
   * The caller already holds (or wants) the order's lease under this owner, as the sweeper
   * does after `claimDue`: the engine renews it and leaves releasing it to the caller.
   */
  leaseOwner?: string;
  /**
   * The order the fact names, as the store returned it to the caller (unmodified), or, with
   * `leaseOwner`, as the caller read it while holding that lease: saves the engine reading it
   * again, and the store reading it inside the compare-and-set. Ignored unless its id is
   * `fact.orderId`. A copy another writer has since changed is refused by the compare-and-set and
   * read afresh; without the lease, an answer that would write nothing (noop, rejected, duplicate)
   * is given only after a read shows the copy is still current.
   */
  known?: Order;
}

export interface ReconcileEngineOptions {
  store: OrderStore;
  hooks?: OrderHooks;
  /** Needed for `confirm()` and for facts with `confirm: true`. */
  gateway?: GatewayPort;
  /** Lease owner prefix; one per process. Defaults to a random id. */
  owner?: string;
  /** How long one apply may hold the order's lease. Default 30 s. */
  leaseMs?: number;
  /** How long to wait for a lease another process holds before answering `busy`. Default 2 s. */
  leaseWaitMs?: number;
  logger?: Logger;
  now?: () => Date;
  /**
   * A monotonic clock in ms for the short window a gateway answer is reused in during a flood of
   * one order's notifications (recent-answers.ts). Default `performance.now`: a business clock
   * (`now`) that stands still or jumps must not stretch it.
   */
  monotonicMs?: () => number;
  /** The hook outbox's dispatcher settings (interval, lease, retries); the engine creates it. */
  outbox?: Omit<OutboxDispatcherOptions, 'store' | 'hooks' | 'logger' | 'owner' | 'observer'>;
  /** Told of every payment that reaches a final state, and (through the outbox) of failed hooks. */
  observer?: OrderObserver;
}

export interface ReconcileEngine {
  /** Delivers the hook outbox; `start()` it for retries and for what a crash left (the kit does). */
  readonly outbox: OutboxDispatcher;
  apply(fact: PaymentFact, options?: ApplyOptions): Promise<ApplyResult>;
  /** Queries the gateway for the order (by id or order number) and applies what it says. */
  confirm(order: string | Pick<Order, 'id'>, source: FactSource, actor?: string): Promise<ApplyResult>;
  /**
   * Appends a card-free event without a state change: hints, admin notes, rejected notifications.
   * A record of a notification that changed nothing is not written after ten such in a row
   * (`appended: false` with the newest of them): anyone can post those.
   */
  record(orderId: string, event: NewEvent): Promise<AppendResult>;
}
