/**
 * Row <-> model mapping shared by the SQL adapters. SQLite hands back epoch ms and JSON text,
 * pg hands back Date, jsonb objects and int8 as strings, PGlite int8 as numbers: every
 * converter accepts all of these so one mapping serves both dialects.
 */
import { KitError } from '../../../errors.js';
import { ORDER_STATES } from '../../types.js';
import { REFUND_STATUSES } from '../../refunds.js';
import type { Refund, RefundSource, RefundStatus } from '../../refunds.js';
import type { FactSource, Order, OrderEvent, OrderState, PaymentMethodKind } from '../../types.js';
import type { OutboxEntry } from '../../store.js';

export type Row = Record<string, unknown>;

const STATES = new Set<string>(ORDER_STATES);
const METHODS = new Set<string>(['card', 'apm', 'hosted']);
const SOURCES = new Set<string>(['pay', 'return', 'cancel', 'notify', 'sweeper', 'admin', 'api']);

function corrupt(column: string, value: unknown): KitError {
  return new KitError('ERR_STORE', `Stored column "${column}" holds an unreadable value`, {
    details: { column, type: typeof value },
  });
}

export function toInt(value: unknown, column: string): number {
  const n = typeof value === 'string' || typeof value === 'bigint' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw corrupt(column, value);
  return n;
}

export function toDate(value: unknown, column: string): Date {
  if (value instanceof Date) return new Date(value.getTime());
  if (typeof value === 'number' || typeof value === 'bigint') return new Date(Number(value));
  if (typeof value === 'string') {
    const d = new Date(value);
    if (!Number.isNaN(d.getTime())) return d;
  }
  throw corrupt(column, value);
}

export function toText(value: unknown, column: string): string {
  if (typeof value !== 'string') throw corrupt(column, value);
  return value;
}

export function toNullableText(value: unknown, column: string): string | null {
  return value === null || value === undefined ? null : toText(value, column);
}

/** JSON text is parsed; jsonb arrives parsed, a new object per query, so no copy is needed. */
export function toJsonObject(value: unknown, column: string): Record<string, unknown> {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw corrupt(column, value);
  return parsed as Record<string, unknown>;
}

function toState(value: unknown, column: string): OrderState {
  if (typeof value !== 'string' || !STATES.has(value)) throw corrupt(column, value);
  return value as OrderState;
}

function toNullableState(value: unknown, column: string): OrderState | null {
  return value === null || value === undefined ? null : toState(value, column);
}

function toMethod(value: unknown): PaymentMethodKind | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string' || !METHODS.has(value)) throw corrupt('method', value);
  return value as PaymentMethodKind;
}

function toSource(value: unknown): FactSource {
  if (typeof value !== 'string' || !SOURCES.has(value)) throw corrupt('source', value);
  return value as FactSource;
}

export function rowToOrder(row: Row): Order {
  return {
    id: toText(row.id, 'id'),
    orderNo: toText(row.order_no, 'order_no'),
    amount: toInt(row.amount, 'amount'),
    currency: toText(row.currency, 'currency'),
    state: toState(row.state, 'state'),
    version: toInt(row.version, 'version'),
    method: toMethod(row.method),
    transactionId: toNullableText(row.transaction_id, 'transaction_id'),
    maskedCard: toNullableText(row.masked_card, 'masked_card'),
    capturedAmount: toInt(row.captured_amount, 'captured_amount'),
    refundedAmount: toInt(row.refunded_amount, 'refunded_amount'),
    attention: toNullableText(row.attention, 'attention'),
    data: toJsonObject(row.data, 'data'),
    createdAt: toDate(row.created_at, 'created_at'),
    updatedAt: toDate(row.updated_at, 'updated_at'),
    // Only child payments carry the key, so every other order reads back as before.
    ...(row.parent_id === null || row.parent_id === undefined ? {} : { parentId: toText(row.parent_id, 'parent_id') }),
  };
}

export function rowToEvent(row: Row): OrderEvent {
  return {
    id: toText(row.id, 'id'),
    orderId: toText(row.order_id, 'order_id'),
    seq: toInt(row.seq, 'seq'),
    type: toText(row.type, 'type'),
    source: toSource(row.source),
    fromState: toNullableState(row.from_state, 'from_state'),
    toState: toNullableState(row.to_state, 'to_state'),
    dedupeKey: toNullableText(row.dedupe_key, 'dedupe_key'),
    actor: toNullableText(row.actor, 'actor'),
    data: toJsonObject(row.data, 'data'),
    createdAt: toDate(row.created_at, 'created_at'),
  };
}

const REFUND_STATUS_SET = new Set<string>(REFUND_STATUSES);

export function rowToRefund(row: Row): Refund {
  const status = row.status;
  if (typeof status !== 'string' || !REFUND_STATUS_SET.has(status)) throw corrupt('status', status);
  const source: RefundSource = row.source === 'import' ? 'import' : toSource(row.source);
  return {
    id: toText(row.id, 'id'),
    orderId: toText(row.order_id, 'order_id'),
    referenceId: toNullableText(row.reference_id, 'reference_id'),
    reference: toNullableText(row.reference, 'reference'),
    amount: toInt(row.amount, 'amount'),
    currency: toText(row.currency, 'currency'),
    status: status as RefundStatus,
    source,
    createdAt: toDate(row.created_at, 'created_at'),
    updatedAt: toDate(row.updated_at, 'updated_at'),
  };
}

/** The order copy an outbox entry keeps, as JSON text (dates as ISO strings). */
export function orderSnapshot(order: Order): string {
  return JSON.stringify(order);
}

function snapshotToOrder(value: unknown): Order {
  const o = toJsonObject(value, 'order_snapshot');
  return { ...(o as unknown as Order), createdAt: toDate(o.createdAt, 'order_snapshot'), updatedAt: toDate(o.updatedAt, 'order_snapshot') };
}

export function rowToOutbox(row: Row): OutboxEntry {
  const status = toText(row.status, 'status');
  if (status !== 'pending' && status !== 'dead') throw corrupt('status', status);
  return {
    id: toText(row.id, 'id'),
    orderId: toText(row.order_id, 'order_id'),
    position: toInt(row.position, 'position'),
    hook: toText(row.hook, 'hook'),
    payload: toJsonObject(row.payload, 'payload'),
    order: snapshotToOrder(row.order_snapshot),
    status,
    attempts: toInt(row.attempts, 'attempts'),
    nextAttemptAt: toDate(row.next_attempt_at, 'next_attempt_at'),
    lastError: toNullableText(row.last_error, 'last_error'),
    createdAt: toDate(row.created_at, 'created_at'),
  };
}
