/**
 * What the SQLite store's statements take and give back: an order and an event as statement
 * parameters, a patch applied to a copy, the columns a compare-and-set from the caller's copy
 * checks, and the event a statement wrote as reading its row would give it.
 */
import type { NewEvent, Order, OrderEvent, OrderPatch } from '../types.js';
import { mergedJson } from '../../objects.js';
import { uuidV7 } from '../../uuid-v7.js';
import type { Row } from './sql/rows.js';
import type { EventParams, KnownColumns, OrderParams, UpdateFromParams } from './sqlite-statements.js';

export function orderParams(order: Order, lastEventSeq: number): OrderParams {
  return {
    id: order.id,
    orderNo: order.orderNo,
    amount: order.amount,
    currency: order.currency,
    state: order.state,
    version: order.version,
    method: order.method,
    transactionId: order.transactionId,
    maskedCard: order.maskedCard,
    capturedAmount: order.capturedAmount,
    refundedAmount: order.refundedAmount,
    attention: order.attention,
    data: JSON.stringify(order.data),
    createdAt: order.createdAt.getTime(),
    updatedAt: order.updatedAt.getTime(),
    lastEventSeq,
  };
}

export function eventParams(orderId: string, seq: number, event: NewEvent, now: number): EventParams {
  return {
    id: uuidV7(now),
    orderId,
    seq,
    type: event.type,
    source: event.source,
    fromState: event.fromState ?? null,
    toState: event.toState ?? null,
    dedupeKey: event.dedupeKey ?? null,
    actor: event.actor ?? null,
    data: JSON.stringify(event.data ?? {}),
    createdAt: now,
  };
}

/** Absent patch fields stay; `data` is merged one level deep. */
export function applyPatch(order: Order, patch: OrderPatch, now: number): Order {
  const next: Order = { ...order, version: order.version + 1, updatedAt: new Date(now) };
  if (patch.state !== undefined) next.state = patch.state;
  if (patch.method !== undefined) next.method = patch.method;
  if (patch.transactionId !== undefined) next.transactionId = patch.transactionId;
  if (patch.maskedCard !== undefined) next.maskedCard = patch.maskedCard;
  if (patch.capturedAmount !== undefined) next.capturedAmount = patch.capturedAmount;
  if (patch.refundedAmount !== undefined) next.refundedAmount = patch.refundedAmount;
  if (patch.attention !== undefined) next.attention = patch.attention;
  if (patch.data !== undefined) next.data = mergedJson(order.data, patch.data);
  return next;
}

/** The copy's columns the compare-and-set checks (KnownColumns). */
export function knownColumns(known: Order): KnownColumns {
  return {
    knownState: known.state,
    knownMethod: known.method,
    knownTransactionId: known.transactionId,
    knownMaskedCard: known.maskedCard,
    knownCapturedAmount: known.capturedAmount,
    knownRefundedAmount: known.refundedAmount,
    knownAttention: known.attention,
  };
}

/** The UPDATE's parameters for `next`, the order as the caller's copy plus the patch. */
export function updateParams(next: Order, known: KnownColumns, expectedVersion: number, added: number): UpdateFromParams {
  return {
    knownState: known.knownState,
    knownMethod: known.knownMethod,
    knownTransactionId: known.knownTransactionId,
    knownMaskedCard: known.knownMaskedCard,
    knownCapturedAmount: known.knownCapturedAmount,
    knownRefundedAmount: known.knownRefundedAmount,
    knownAttention: known.knownAttention,
    id: next.id,
    expectedVersion,
    state: next.state,
    version: next.version,
    method: next.method,
    transactionId: next.transactionId,
    maskedCard: next.maskedCard,
    capturedAmount: next.capturedAmount,
    refundedAmount: next.refundedAmount,
    attention: next.attention,
    data: JSON.stringify(next.data),
    updatedAt: next.updatedAt.getTime(),
    added,
  };
}

/** The event just inserted from `params`, as reading its row would give it. */
export function storedEvent(params: EventParams): OrderEvent {
  return {
    id: params.id,
    orderId: params.orderId,
    seq: params.seq,
    type: params.type,
    source: params.source as OrderEvent['source'],
    fromState: params.fromState as OrderEvent['fromState'],
    toState: params.toState as OrderEvent['toState'],
    dedupeKey: params.dedupeKey,
    actor: params.actor,
    data: JSON.parse(params.data) as Record<string, unknown>,
    createdAt: new Date(params.createdAt),
  };
}

export function seqOf(row: Row): number {
  return Number(row.last_event_seq);
}
