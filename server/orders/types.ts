/**
 * The order model shared by the state machine, the reconcile engine, the storage adapters and
 * the routers. Amounts are integer minor units of `currency`. No card number, CVV or expiry is
 * ever part of an order or an event: only the masked card the gateway returns.
 */

export const ORDER_STATES = [
  'created',
  'pending',
  'requires_action',
  'authorized',
  'paid',
  'partially_refunded',
  'refunded',
  'in_review',
  'declined',
  'failed',
  'cancelled',
  'expired',
  'chargeback',
] as const;
export type OrderState = (typeof ORDER_STATES)[number];

export type PaymentMethodKind = 'card' | 'apm' | 'hosted';

/** Where a fact came from. Every entry point goes through the one reconcile engine. */
export type FactSource = 'pay' | 'return' | 'cancel' | 'notify' | 'sweeper' | 'admin' | 'api';

export interface Order {
  /** Kit-assigned id (UUID). */
  id: string;
  /** The merchant's order number, unique per store; sent as `order_no`. */
  orderNo: string;
  amount: number;
  currency: string;
  state: OrderState;
  /** Increases by one on every successful transition; the compare-and-set token. */
  version: number;
  method: PaymentMethodKind | null;
  /** Gateway transaction id, once known. */
  transactionId: string | null;
  /** Masked card number from the gateway (e.g. 424242******4242), never the full number. */
  maskedCard: string | null;
  /** Minor units captured so far (equals `amount` for an auto-captured sale). */
  capturedAmount: number;
  /** Minor units refunded so far. */
  refundedAmount: number;
  /** Set when money moved in a way staff must look at (paid after cancel, amount mismatch…). */
  attention: string | null;
  /**
   * What the shop supplied to build gateway requests (items, shopper, addresses, subscription,
   * urls…) and what the gateway reported (result code, recurring id…). JSON, card-free.
   */
  data: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
  /**
   * Present only on a child payment: the id of the order it belongs to (a subscription's
   * deduction names the order that started the subscription). Set at create, never changed.
   */
  parentId?: string;
}

export interface NewOrder {
  id: string;
  orderNo: string;
  amount: number;
  currency: string;
  state?: OrderState;
  method?: PaymentMethodKind | null;
  data?: Record<string, unknown>;
  /** Defaults to now; tests and imports may set it. */
  createdAt?: Date;
  /** Makes the order a child payment of this order (see `Order.parentId`). */
  parentId?: string;
}

/** Fields a transition may change. Absent fields stay as they are. */
export interface OrderPatch {
  state?: OrderState;
  method?: PaymentMethodKind | null;
  transactionId?: string | null;
  maskedCard?: string | null;
  capturedAmount?: number;
  refundedAmount?: number;
  attention?: string | null;
  /** Shallow-merged into `data`. */
  data?: Record<string, unknown>;
}

export interface OrderEvent {
  id: string;
  orderId: string;
  /** 1, 2, 3… per order, in the order events were appended. */
  seq: number;
  /** e.g. `transition`, `notification`, `notification_rejected`, `return_hint`, `admin_action`, `mismatch`. */
  type: string;
  source: FactSource;
  fromState: OrderState | null;
  toState: OrderState | null;
  /** Unique per order when set: a second event with the same key is not appended. */
  dedupeKey: string | null;
  /** Who did it: `gateway`, `shopper`, `sweeper`, or a staff identity. */
  actor: string | null;
  data: Record<string, unknown>;
  createdAt: Date;
}

export interface NewEvent {
  type: string;
  source: FactSource;
  fromState?: OrderState | null;
  toState?: OrderState | null;
  dedupeKey?: string | null;
  actor?: string | null;
  data?: Record<string, unknown>;
}

/** The order a store keeps for `input` at version 0: what every adapter's `create` starts from. */
export function initialOrder(input: NewOrder, createdAt: Date): Order {
  return {
    id: input.id,
    orderNo: input.orderNo,
    amount: input.amount,
    currency: input.currency,
    state: input.state ?? 'created',
    version: 0,
    method: input.method ?? null,
    transactionId: null,
    maskedCard: null,
    capturedAmount: 0,
    refundedAmount: 0,
    attention: null,
    data: input.data ?? {},
    createdAt: new Date(createdAt.getTime()),
    updatedAt: new Date(createdAt.getTime()),
    ...(input.parentId === undefined ? {} : { parentId: input.parentId }),
  };
}
