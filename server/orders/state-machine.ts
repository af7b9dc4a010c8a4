/**
 * The order state machine: one transition table and one pure `decide(order, fact)`. No I/O, no
 * clock: the reconcile engine reads, decides with this module, then writes by compare-and-set.
 *
 * Ordering rule: every order has a rank (`rankOf`). A fact that would lower the rank is late or
 * out of order and is a noop, so duplicated, delayed and reordered notifications can never move
 * an order backwards. Every row of the table keeps or raises the rank (a test proves it).
 */
import type { PaymentOutcome } from '../gateway/codes.js';
import { merged } from '../objects.js';
import type { Order, OrderPatch, OrderState } from './types.js';

/** Allowed moves, from → to. Anything else is a noop (late) or a rejection (illegal). */
export const TRANSITIONS: Readonly<Record<OrderState, readonly OrderState[]>> = {
  created: ['pending', 'requires_action', 'in_review', 'authorized', 'paid', 'declined', 'failed', 'cancelled', 'expired'],
  pending: ['requires_action', 'in_review', 'authorized', 'paid', 'declined', 'failed', 'cancelled', 'expired'],
  // The shopper finished the challenge and the gateway is still working on it.
  requires_action: ['pending', 'in_review', 'authorized', 'paid', 'declined', 'failed', 'cancelled', 'expired'],
  in_review: ['authorized', 'paid', 'declined', 'cancelled'],
  // capture, void, or an authorisation that lapsed uncaptured.
  authorized: ['paid', 'cancelled', 'expired'],
  paid: ['partially_refunded', 'refunded', 'chargeback'],
  // partially_refunded → partially_refunded only when the refunded amount grows.
  partially_refunded: ['partially_refunded', 'refunded', 'chargeback'],
  // A chargeback after a full refund is real money lost twice: applied and flagged.
  refunded: ['chargeback'],
  // Late money: the payment succeeded after the order ended. Applied and flagged.
  declined: ['authorized', 'paid'],
  failed: ['authorized', 'paid'],
  cancelled: ['authorized', 'paid'],
  expired: ['authorized', 'paid'],
  chargeback: [],
};

/** What each gateway outcome means for the order. `unknown` tells nothing and is a noop. */
export const OUTCOME_STATE: Readonly<Record<Exclude<PaymentOutcome, 'unknown'>, OrderState>> = {
  approved: 'paid',
  authorized: 'authorized',
  pending: 'pending',
  in_review: 'in_review',
  requires_action: 'requires_action',
  declined: 'declined',
  failed: 'failed',
  cancelled: 'cancelled',
  expired: 'expired',
  refunded: 'refunded',
  partially_refunded: 'partially_refunded',
  chargeback: 'chargeback',
};

/** States in which the shopper's payment is still open: the result page keeps "confirming…". */
export const OPEN_STATES: readonly OrderState[] = ['created', 'pending', 'requires_action'];

/**
 * Final for the shopper's result page: the page can stop refreshing and say what happened.
 * `authorized` (money held) and `in_review` (staff decide, possibly days later) are final for
 * the shopper even though staff may still move them.
 */
export function isFinal(state: OrderState): boolean {
  return !OPEN_STATES.includes(state);
}

/**
 * Marker kept in `order.data` once an authorisation was voided or lapsed, so a late
 * `authorized` for that same payment cannot bring the order back (the void is newer).
 */
export const AUTHORIZATION_RELEASED = 'authorizationReleased';

/**
 * Marker kept in `order.data` while a partial capture staff (or the shop's code) sent is on its
 * way: minor units requested. The gateway's own word of the capture (its notification, a query)
 * repeats the authorised amount, so whichever reaches the order first records this amount.
 */
export const REQUESTED_CAPTURE = 'requestedCapture';

/** The capture amount recorded while the order is authorised, when a valid one is. */
export function requestedCaptureOf(order: Pick<Order, 'amount' | 'data'>): number | undefined {
  const value = order.data[REQUESTED_CAPTURE];
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value <= order.amount ? value : undefined;
}

/** What a move to `paid` records as captured: the fact's amount, a requested capture, else the whole order. */
export function capturedOnPayment(order: Pick<Order, 'state' | 'amount' | 'data'>, fact: Pick<StateFact, 'capturedAmount'>): number {
  if (fact.capturedAmount !== undefined) return fact.capturedAmount;
  return (order.state === 'authorized' ? requestedCaptureOf(order) : undefined) ?? order.amount;
}

const BASE_RANK: Readonly<Record<OrderState, number>> = {
  created: 0,
  pending: 1,
  requires_action: 1,
  in_review: 2,
  declined: 3,
  failed: 3,
  cancelled: 3,
  expired: 3,
  authorized: 4,
  // 5: cancelled or expired after an authorisation (see rankOf)
  paid: 6,
  partially_refunded: 7,
  refunded: 8,
  chargeback: 9,
};

/** How far the order has progressed. Facts never lower it. */
export function rankOf(order: Pick<Order, 'state' | 'data'>): number {
  if ((order.state === 'cancelled' || order.state === 'expired') && order.data[AUTHORIZATION_RELEASED] === true) return 5;
  return BASE_RANK[order.state];
}

/** The facts `decide` reads: an outcome plus the amounts and ids that came with it. */
export interface StateFact {
  outcome: PaymentOutcome;
  transactionId?: string | null;
  maskedCard?: string | null;
  /** Cumulative minor units refunded, for refund outcomes. */
  refundedAmount?: number;
  /**
   * Minor units captured, for approved outcomes: at most the order amount (one capture per
   * authorisation; the rest is released). Defaults to a capture requested on the authorised
   * order (`REQUESTED_CAPTURE`), else the order amount.
   */
  capturedAmount?: number;
}

/** What was captured: the captured amount, or the order amount for a sale recorded without one. */
export function capturedOf(order: Pick<Order, 'amount' | 'capturedAmount'>): number {
  return order.capturedAmount > 0 ? order.capturedAmount : order.amount;
}

export type Decision =
  | { kind: 'transition'; to: OrderState; patch: OrderPatch; attention?: string }
  | { kind: 'noop'; reason: string }
  | { kind: 'reject'; reason: string };

const MONEY_ENDED: readonly OrderState[] = ['declined', 'failed', 'cancelled', 'expired'];

function attentionFor(order: Order, to: OrderState): string | undefined {
  if (MONEY_ENDED.includes(order.state) && (to === 'paid' || to === 'authorized')) {
    const what = to === 'paid' ? 'captured' : 'authorised';
    const action =
      to === 'paid' ? 'Ship the order, or refund the payment.' : 'Capture and ship, or void the authorisation.';
    return `Payment ${what} after the order was ${order.state}: the shopper's money is real. ${action}`;
  }
  if (to === 'chargeback') {
    return order.state === 'refunded'
      ? 'Chargeback after a full refund: dispute it with the refund as evidence.'
      : 'Chargeback received: answer the dispute or accept it.';
  }
  return undefined;
}

function refundedAmountOf(order: Order, fact: StateFact, to: OrderState): number | undefined {
  if (fact.refundedAmount !== undefined) return fact.refundedAmount;
  if (to === 'refunded') return capturedOf(order);
  return undefined;
}

/**
 * The masked card a fact moving the order writes, or undefined when the order's stays. A card
 * belongs to one transaction, so it is written only with the transaction it came with: a move to
 * another transaction whose card the fact does not name clears the card (a declined attempt's
 * card must not show on the payment a later attempt made). An order without a transaction id
 * keeps its card for the first id it learns (the pay answer gives both at once).
 */
export function cardWritten(order: Pick<Order, 'transactionId' | 'maskedCard'>, fact: Pick<StateFact, 'transactionId' | 'maskedCard'>): string | null | undefined {
  if (fact.maskedCard != null) return fact.maskedCard === order.maskedCard ? undefined : fact.maskedCard;
  const moves = fact.transactionId != null && order.transactionId !== null && fact.transactionId !== order.transactionId;
  return moves && order.maskedCard !== null ? null : undefined;
}

/**
 * The card a fact that leaves the state as it is gives an order that has none: only one naming
 * the order's own transaction (a payment recorded from the gateway's query, which names no card,
 * learns it from that payment's notification). A card the order holds stays: the first one wins.
 */
export function cardFilled(order: Pick<Order, 'transactionId' | 'maskedCard'>, fact: Pick<StateFact, 'transactionId' | 'maskedCard'>): string | undefined {
  if (order.maskedCard !== null || order.transactionId === null || fact.transactionId !== order.transactionId) return undefined;
  return fact.maskedCard ?? undefined;
}

function buildPatch(order: Order, fact: StateFact, to: OrderState): OrderPatch {
  const patch: OrderPatch = { state: to };
  if (fact.transactionId != null && fact.transactionId !== order.transactionId) patch.transactionId = fact.transactionId;
  const card = cardWritten(order, fact);
  if (card !== undefined) patch.maskedCard = card;
  if (to === 'paid') patch.capturedAmount = capturedOnPayment(order, fact);
  if (to === 'partially_refunded' || to === 'refunded') {
    const refunded = refundedAmountOf(order, fact, to);
    if (refunded !== undefined) patch.refundedAmount = refunded;
  }
  if (order.state === 'authorized' && (to === 'cancelled' || to === 'expired')) {
    patch.data = { [AUTHORIZATION_RELEASED]: true };
  }
  return patch;
}

/**
 * Decides what one fact does to one order. Pure: the same order and fact always give the same
 * decision, and applying the decision's patch then deciding the same fact again is a noop.
 */
export function decide(order: Order, fact: StateFact): Decision {
  if (fact.outcome === 'unknown') return { kind: 'noop', reason: 'the outcome is unknown' };
  const from = order.state;
  const to = OUTCOME_STATE[fact.outcome];

  if (fact.capturedAmount !== undefined && (fact.capturedAmount <= 0 || fact.capturedAmount > order.amount)) {
    return { kind: 'reject', reason: `captured amount ${fact.capturedAmount} is not between 1 and the authorised amount ${order.amount}` };
  }
  if (fact.refundedAmount !== undefined && (to === 'partially_refunded' || to === 'refunded')) {
    // Refunds are bounded by what was captured; an order never captured counts its whole amount.
    const captured = capturedOf(order);
    if (fact.refundedAmount > captured) {
      return { kind: 'reject', reason: `refunded amount ${fact.refundedAmount} exceeds the captured amount ${captured}` };
    }
    if (to === 'partially_refunded' && fact.refundedAmount >= captured) {
      return { kind: 'reject', reason: 'a partial refund cannot cover the whole captured amount' };
    }
  }

  if (to === from) {
    if (to === 'partially_refunded' && fact.refundedAmount !== undefined && fact.refundedAmount > order.refundedAmount) {
      return { kind: 'transition', to, patch: buildPatch(order, fact, to) };
    }
    return { kind: 'noop', reason: `already ${from}` };
  }

  const patch = buildPatch(order, fact, to);
  const next = rankOf({ state: to, data: merged(order.data, patch.data) });
  const current = rankOf(order);
  if (next < current) return { kind: 'noop', reason: `late fact: ${to} would move the order back from ${from}` };
  if (!TRANSITIONS[from].includes(to)) {
    return next === current
      ? { kind: 'noop', reason: `late fact: the order already ended as ${from}` }
      : { kind: 'reject', reason: `illegal transition ${from} → ${to}` };
  }
  const attention = attentionFor(order, to);
  if (attention === undefined) return { kind: 'transition', to, patch };
  return { kind: 'transition', to, patch: merged(patch, { attention: mergeAttention(order.attention, attention) }), attention };
}

/** Adds a reason to the order's attention text without losing earlier ones. */
/** Reasons an order's attention keeps: facts from anyone (a notification's unsigned fields) must not grow it without bound. */
export const MAX_ATTENTION_REASONS = 20;

export function mergeAttention(existing: string | null, added: string): string {
  if (existing === null || existing === '') return added;
  const reasons = existing.split('\n');
  return reasons.includes(added) || reasons.length >= MAX_ATTENTION_REASONS ? existing : `${existing}\n${added}`;
}
