/**
 * What one fact does to one order, decided without I/O from the order read under the lease: the
 * state machine's decision plus what the fact carries besides its outcome (details for
 * `order.data`, a reason for staff), as the single compare-and-set that stores it. Refund facts
 * reach it with the outcome and amount their ledger step derived (engine-refunds.ts).
 */
import type { Logger } from '../logging.js';
import { merged } from '../objects.js';
import type { PaymentFact } from './engine-types.js';
import { cardFree } from './fact-schema.js';
import { OUTCOME_STATE, REQUESTED_CAPTURE, TRANSITIONS, cardFilled, decide, mergeAttention, requestedCaptureOf } from './state-machine.js';
import type { Order, OrderPatch, OrderState } from './types.js';

export type Plan =
  /** The fact is illegal for this order: recorded, never applied. */
  | { kind: 'reject'; fact: PaymentFact; reason: string }
  /** Nothing to store (late or repeated fact without news). */
  | { kind: 'noop'; fact: PaymentFact; reason: string }
  /** One compare-and-set: the patch with an event of `type`. */
  | {
      kind: 'write';
      fact: PaymentFact;
      type: 'transition' | 'details' | 'attention' | 'refund';
      patch: OrderPatch;
      /** Present when the state moves. */
      moved?: { from: OrderState; to: OrderState };
      /** The new attention reasons, one per line, when there are any. */
      raised?: string;
      /** Why the state does not move (details and attention writes). */
      reason?: string;
    };

/** The attention text with `reasons` merged in, and the reasons that were new. */
export function withReasons(existing: string | null, reasons: readonly (string | undefined)[]): { attention: string | null; added: string[] } {
  let attention = existing;
  const added: string[] = [];
  for (const reason of reasons) {
    if (reason === undefined) continue;
    const next = mergeAttention(attention, reason);
    if (next !== attention) added.push(reason);
    attention = next;
  }
  return { attention, added };
}

/** The card-free keys of `orderData` whose value differs from the order's, or null when none do. */
export function changedDetails(order: Order, orderData: Record<string, unknown> | undefined, logger: Logger): Record<string, unknown> | null {
  if (orderData === undefined) return null;
  const clean = cardFree(orderData, logger);
  let changed: Record<string, unknown> | null = null;
  for (const key of Object.keys(clean)) {
    const value = clean[key];
    // Strings and other primitives compare as they are; anything else as its JSON text.
    const same = typeof value === 'object' && value !== null ? JSON.stringify(order.data[key]) === JSON.stringify(value) : order.data[key] === value;
    if (!same) changed = merged(changed, { [key]: value });
  }
  return changed;
}

/** True when the fact reports the state the order is already in (not a late fact). */
function reportsCurrentState(order: Order, fact: PaymentFact): boolean {
  return fact.outcome !== 'unknown' && OUTCOME_STATE[fact.outcome] === order.state;
}

/** `extraReasons`: reasons for staff found before planning (the refund ledger step's). */
export function planFact(order: Order, fact: PaymentFact, logger: Logger, now: () => Date, extraReasons: readonly string[] = []): Plan {
  const pending = requestedCaptureOf(order);
  if (pending !== undefined && typeof fact.orderData?.[REQUESTED_CAPTURE] === 'number') {
    // One capture per authorisation, and the gateway's report of it does not say the amount: a
    // second request while one is sent or its answer lost would make the recorded amount a guess.
    return { kind: 'reject', fact, reason: `a capture of ${String(pending)} minor units was already requested and its outcome is not recorded yet` };
  }
  const decision = decide(order, fact);
  if (decision.kind === 'reject') return { kind: 'reject', fact, reason: decision.reason };

  const reasons = [decision.kind === 'transition' ? decision.attention : undefined, fact.attention, ...extraReasons];
  const { attention, added } = withReasons(order.attention, reasons);
  const raised = added.length > 0 ? added.join('\n') : undefined;
  const flag = (patch: OrderPatch): OrderPatch =>
    raised === undefined ? patch : merged(patch, { attention, data: merged(patch.data, { attentionAt: now().toISOString() }) });

  if (decision.kind === 'transition') {
    const data = merged(changedDetails(order, fact.orderData, logger), decision.patch.data);
    return { kind: 'write', fact, type: 'transition', patch: flag(merged(decision.patch, { data })), moved: { from: order.state, to: decision.to }, raised };
  }
  // A late fact's details describe a state the order has left; one reporting the current state may add to them.
  const details = reportsCurrentState(order, fact) ? changedDetails(order, fact.orderData, logger) : null;
  const card = cardFilled(order, fact);
  if (raised === undefined && details === null && card === undefined) return { kind: 'noop', fact, reason: decision.reason };
  const type = raised === undefined ? 'details' : 'attention';
  const patch: OrderPatch = { data: details ?? {} };
  if (card !== undefined) patch.maskedCard = card;
  return { kind: 'write', fact, type, patch: flag(patch), raised, reason: raised ?? decision.reason };
}

const AFTER_CAPTURE: readonly OrderState[] = ['partially_refunded', 'refunded', 'chargeback'];

/**
 * A refund or chargeback reported for an order that never recorded its capture (the payment's
 * own notification was late or lost): the capture it implies, planned as its own transition so
 * the shop's `onPaid` runs before `onRefunded`. Null when the fact needs no such step.
 */
export function impliedCapture(order: Order, fact: PaymentFact, logger: Logger, now: () => Date): Extract<Plan, { kind: 'write' }> | null {
  if (fact.outcome === 'unknown' || !AFTER_CAPTURE.includes(OUTCOME_STATE[fact.outcome]) || !TRANSITIONS[order.state].includes('paid')) return null;
  const capture: PaymentFact = {
    ...fact,
    outcome: 'approved',
    refundedAmount: undefined,
    refunds: undefined,
    listedRefunds: undefined,
    capturedAmount: undefined,
    dedupeKey: undefined,
    attention: undefined,
    orderData: undefined,
  };
  const plan = planFact(order, capture, logger, now);
  return plan.kind === 'write' && plan.moved?.to === 'paid' ? plan : null;
}
