/**
 * Pure helpers of the reconcile engine: comparing a fact with the order, taking the gateway's
 * answer over a claim, and building the card-free events the engine writes.
 */
import type { PaymentOutcome } from '../gateway/codes.js';
import { moneyText } from '../gateway/money.js';
import type { Logger } from '../logging.js';
import { merged } from '../objects.js';
import type { GatewayOrderFact, PaymentFact, RefundReport } from './engine-types.js';
import type { Refund } from './refunds.js';
import { MASKED_CARD_RE, cardFree } from './fact-schema.js';
import { OUTCOME_STATE, TRANSITIONS } from './state-machine.js';
import { subscriptionData, withoutSubscriptionData } from './subscriptions.js';
import type { FactSource, NewEvent, Order, OrderState } from './types.js';

/** Outcomes that move money or end the payment: confirmed with the gateway when asked. */
export const CONFIRMABLE_OUTCOMES: ReadonlySet<PaymentOutcome> = new Set<PaymentOutcome>([
  'approved', 'authorized', 'declined', 'failed', 'cancelled', 'expired', 'refunded', 'partially_refunded', 'chargeback',
]);

const DEFAULT_ACTOR: Record<FactSource, string | null> = {
  pay: 'gateway',
  notify: 'gateway',
  sweeper: 'sweeper',
  return: 'shopper',
  cancel: 'shopper',
  admin: null,
  api: null,
};

/** How every mismatch reason starts, so a later confirmed fact can tell it from other reasons. */
const MISMATCH_RE = /^The [a-z]+ reported a different /;

/** The attention text without mismatch reasons (null when nothing else is left). */
export function withoutMismatchReasons(attention: string | null): string | null {
  if (attention === null) return null;
  const kept = attention.split('\n').filter((line) => !MISMATCH_RE.test(line));
  return kept.length === 0 ? null : kept.join('\n');
}

/** What does not match between the fact and the order, or null when everything given matches. */
export function mismatchOf(order: Order, fact: PaymentFact): string | null {
  const problems: string[] = [];
  if (fact.orderNo !== undefined && fact.orderNo !== order.orderNo) problems.push('order number');
  if (fact.currency !== undefined && fact.currency !== order.currency) problems.push('currency');
  if (fact.amount !== undefined && fact.amount !== order.amount) problems.push('amount');
  if (problems.length === 0) return null;
  const claimed = moneyText(fact.amount ?? order.amount, fact.currency ?? order.currency);
  return (
    `The ${fact.source === 'notify' ? 'notification' : fact.source} reported a different ${problems.join(' and ')} ` +
    `(${claimed} for order ${fact.orderNo ?? order.orderNo}; the order is ${moneyText(order.amount, order.currency)}). ` +
    'Not applied: check the payment in the gateway portal.'
  );
}

/**
 * True when the gateway's answer has not caught up with the claim yet: it knows no outcome, or the
 * claim is a later step the order could still take from the answer's state (paid while the query
 * still says requires_action, refunded while it says paid). Such a claim is neither applied nor
 * refused, and not marked seen: its sender asks again later.
 */
export function answerIsBehind(claim: PaymentOutcome, answer: PaymentOutcome): boolean {
  if (claim === answer || claim === 'unknown') return false;
  if (answer === 'unknown') return true;
  return TRANSITIONS[OUTCOME_STATE[answer]].includes(OUTCOME_STATE[claim]);
}

/**
 * The claim with the gateway's answer in place of every payment detail. `order` is the order the
 * claim is about. The card is the one of the transaction the order ends on (the answer's, else
 * the claim's, else the order's): the answer's card; else the card the order holds for it (a
 * notification's card field is outside its signature, so the first confirmed one stays); else
 * the claim's, when the claim names that transaction (signed) or names none and it is the
 * order's; else none, and moving to that transaction clears the order's card (state-machine.ts).
 */
export function withGatewayAnswer(fact: PaymentFact, answer: GatewayOrderFact, order: Pick<Order, 'maskedCard' | 'transactionId'>): PaymentFact {
  const sameOutcome = answer.outcome === fact.outcome;
  const ends = answer.transactionId ?? fact.transactionId ?? order.transactionId;
  // An order without a transaction id yet holds the card of the attempt the first id names.
  const orderOwn = order.transactionId === null || order.transactionId === ends;
  const claimOwn = fact.transactionId == null ? orderOwn : fact.transactionId === ends;
  const claimed = (orderOwn ? order.maskedCard : null) ?? (claimOwn ? fact.maskedCard : null);
  const masked = answer.maskedCard != null && MASKED_CARD_RE.test(answer.maskedCard) ? answer.maskedCard : claimed;
  return {
    ...fact,
    orderNo: answer.orderNo,
    outcome: answer.outcome,
    amount: answer.amount,
    currency: answer.currency,
    transactionId: answer.transactionId ?? fact.transactionId ?? null,
    maskedCard: masked ?? null,
    // A total without references is only compared with the ledger (engine-refunds.ts).
    refundedAmount: answer.refundedAmount ?? (sameOutcome ? fact.refundedAmount : undefined),
    // The claim's own refunds (a notification's) and the gateway's list: the ledger counts each once.
    ...(answer.refunds === undefined ? {} : { listedRefunds: answer.refunds }),
    capturedAmount: sameOutcome ? fact.capturedAmount : undefined,
    // The claim's details explain the outcome it claimed: when the gateway answered another, none
    // of them is kept (a refusal claimed of a paid order must not relabel it, nor a chargeback
    // claimed of one give it a reason).
    orderData: undefined,
    ...withSubscription(sameOutcome ? fact.orderData : undefined, answer),
  };
}

/** A claim to confirm without its own subscription details (only the gateway's answer gives them). */
export function withoutClaimedSubscription(fact: PaymentFact): PaymentFact {
  if (fact.confirm !== true || fact.orderData === undefined) return fact;
  const orderData = withoutSubscriptionData(fact.orderData);
  if (orderData === fact.orderData) return fact;
  const { orderData: _claimed, ...rest } = fact;
  return orderData === undefined ? rest : { ...rest, orderData };
}

/**
 * The claim's refunds the gateway vouches for: listed by its refund search, or already succeeded
 * in the order's ledger, under the same reference and amount. A notification's refund fields are
 * outside its signature, so nothing else is taken: a held reference with another amount is
 * dropped, not flagged (anyone could post one per amount and crowd out real alerts); the
 * gateway's own list flags a real difference. `unknown` says whether one named a reference
 * neither the list nor the ledger has (yet).
 */
export function vouchedRefunds(claim: PaymentFact, answer: GatewayOrderFact, rows: readonly Refund[]): { refunds: RefundReport[] | undefined; unknown: boolean } {
  const known = [...(answer.refunds ?? []), ...rows.filter((row) => row.status === 'succeeded')];
  const kept = (claim.refunds ?? []).filter((r) => known.some((k) => k.referenceId === r.referenceId && k.amount === r.amount));
  const unknown = (claim.refunds ?? []).some((r) => !known.some((k) => k.referenceId === r.referenceId));
  return { refunds: kept.length === 0 ? undefined : kept, unknown };
}

function withSubscription(orderData: Record<string, unknown> | undefined, answer: GatewayOrderFact): { orderData?: Record<string, unknown> } {
  const subscription = subscriptionData(answer.subscription);
  if (subscription === undefined) return orderData === undefined ? {} : { orderData };
  return { orderData: { ...orderData, ...subscription } };
}

/** A fact built from the gateway's answer about one order (sweeper, confirm). */
export function factFromAnswer(orderId: string, answer: GatewayOrderFact, source: FactSource, actor?: string): PaymentFact {
  return {
    orderId,
    orderNo: answer.orderNo,
    source,
    actor,
    outcome: answer.outcome,
    amount: answer.amount,
    currency: answer.currency,
    transactionId: answer.transactionId,
    // A port that passes anything but a masked card loses it here rather than failing the fact.
    maskedCard: answer.maskedCard != null && MASKED_CARD_RE.test(answer.maskedCard) ? answer.maskedCard : undefined,
    refundedAmount: answer.refundedAmount,
    ...(answer.refunds === undefined ? {} : { listedRefunds: answer.refunds }),
    ...withSubscription(undefined, answer),
    data: { confirmedBy: 'query' },
  };
}

export interface EventContext {
  type: string;
  fact: PaymentFact;
  order: Order;
  to?: OrderState | null;
  /** The engine asked the gateway; `claimed` is what the caller said before. */
  confirmed?: { claimed: PaymentOutcome };
  reason?: string;
  dedupeKey?: string | null;
}

/** A card-free event describing what the engine did with a fact. */
export function factEvent(ctx: EventContext, logger: Logger): NewEvent {
  const { fact } = ctx;
  const facts: Record<string, unknown> = {
    outcome: fact.outcome,
    transactionId: fact.transactionId ?? undefined,
    amount: fact.amount,
    currency: fact.currency,
    maskedCard: fact.maskedCard ?? undefined,
    refundedAmount: fact.refundedAmount,
    capturedAmount: fact.capturedAmount,
    confirmed: ctx.confirmed === undefined ? undefined : true,
    claimedOutcome: ctx.confirmed?.claimed,
    reason: ctx.reason,
  };
  // The caller's details first; what the engine knows wins where both name a field.
  const details = merged(fact.data);
  for (const key of Object.keys(facts)) if (facts[key] !== undefined) details[key] = facts[key];
  return {
    type: ctx.type,
    source: fact.source,
    fromState: ctx.order.state,
    toState: ctx.to ?? null,
    dedupeKey: ctx.dedupeKey === undefined ? (fact.dedupeKey ?? null) : ctx.dedupeKey,
    actor: fact.actor ?? DEFAULT_ACTOR[fact.source],
    data: cardFree(details, logger),
  };
}
