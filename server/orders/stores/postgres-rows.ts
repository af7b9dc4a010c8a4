/**
 * What the PostgreSQL store's statements take and give back, beside the statements themselves
 * (postgres-queries.ts): an event's parameters, the order a compare-and-set from the caller's
 * copy wrote, the event a transition returned, the refusal of a repeated dedupe key.
 */
import { merged } from '../../objects.js';
import { uuidV7 } from '../../uuid-v7.js';
import type { NewEvent, Order, OrderEvent } from '../types.js';
import { DEDUPE_INDEX, EVENT_COLUMNS } from './postgres-queries.js';
import { rowToEvent } from './sql/rows.js';
import type { Row } from './sql/rows.js';

/** An event's columns but its seq (the statement takes the seq from the order row it locks). */
export function eventParams(orderId: string, event: NewEvent, now: Date): unknown[] {
  return [
    uuidV7(now.getTime()),
    orderId,
    event.type,
    event.source,
    event.fromState ?? null,
    event.toState ?? null,
    event.dedupeKey ?? null,
    event.actor ?? null,
    JSON.stringify(event.data ?? {}),
    now.toISOString(),
  ];
}

const PATCHED_COLUMNS = ['state', 'method', 'transactionId', 'maskedCard', 'capturedAmount', 'refundedAmount', 'attention'] as const;

/**
 * `known` with the patch applied as the transition statement applies it (TRANSITION_SET): a key
 * present in the JSON patch is set (null included), `data` merged one level deep (jsonb `||`).
 * Everything through JSON, so the copy shares nothing with the caller's objects.
 */
export function patchedCopy(known: Order, patch: Record<string, unknown>, now: Date): Order {
  const next = merged(known);
  next.createdAt = new Date(known.createdAt.getTime());
  next.updatedAt = new Date(now.getTime());
  next.version = known.version + 1;
  const fields = next as unknown as Record<string, unknown>;
  for (const key of PATCHED_COLUMNS) if (key in patch) fields[key] = patch[key];
  // merged(): a `__proto__` key in the data is copied as data, as jsonb keeps it.
  const data = JSON.parse(JSON.stringify(known.data)) as Record<string, unknown>;
  next.data = 'data' in patch ? merged(data, patch.data as Record<string, unknown>) : data;
  return next;
}

/** True for the refusal of an event whose dedupe key the order already has. */
export const isDedupeConflict = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505' && (error as { constraint?: unknown }).constraint === DEDUPE_INDEX;

/** The event a transition statement returned beside the order (its `ev_` columns), if any. */
export function returnedEvent(row: Row): OrderEvent | null {
  if (row.ev_id === null || row.ev_id === undefined) return null;
  return rowToEvent(Object.fromEntries<unknown>(EVENT_COLUMNS.map((c) => [c, row[`ev_${c}`]])));
}
