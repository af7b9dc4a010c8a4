/**
 * Every statement the PostgreSQL store runs, built once per store with the schema name quoted
 * in. Parameters are always bound; dates travel as ISO strings, `data` and patches as JSON text.
 */
import { ConfigError } from '../../errors.js';

const IDENTIFIER_RE = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The schema as a quoted SQL identifier; refuses anything that is not a plain identifier. */
export function quoteSchema(schema: string): string {
  if (!IDENTIFIER_RE.test(schema)) {
    throw new ConfigError('postgres.schema', 'must be a plain identifier (letters, digits, underscore; at most 63)', 'use e.g. "public" or "checkout"');
  }
  return `"${schema}"`;
}

/** The partial index `checkout_orders_subscriptions`'s own WHERE (migration 006). */
const LIVE_SUBSCRIPTION = `parent_id IS NULL AND (data->>'recurringId') IS NOT NULL
  AND (coalesce(data->>'subscriptionStatus', 'active') = 'active'
    OR (data->>'subscriptionStatus' = 'cancelled' AND coalesce(data->>'subscriptionCancelSettled', 'false') <> 'true'))`;

/** Unexpired lease held by someone: such orders are not due. */
const NOT_LEASED = '(lease_owner IS NULL OR lease_until <= now())';

/** The unique index that refuses a second event with the same dedupe key on one order. */
export const DEDUPE_INDEX = 'checkout_order_events_dedupe';

/** The event columns the transition statement returns as `ev_<column>`. */
export const EVENT_COLUMNS = ['id', 'order_id', 'seq', 'type', 'source', 'from_state', 'to_state', 'dedupe_key', 'actor', 'data', 'created_at'] as const;

/** The transition's SET list: $3 is the patch, $4 the time, $5 the events it adds to the order's count. */
const TRANSITION_SET = `
        state = CASE WHEN p.j ? 'state' THEN p.j->>'state' ELSE o.state END,
        method = CASE WHEN p.j ? 'method' THEN p.j->>'method' ELSE o.method END,
        transaction_id = CASE WHEN p.j ? 'transactionId' THEN p.j->>'transactionId' ELSE o.transaction_id END,
        masked_card = CASE WHEN p.j ? 'maskedCard' THEN p.j->>'maskedCard' ELSE o.masked_card END,
        captured_amount = CASE WHEN p.j ? 'capturedAmount' THEN (p.j->>'capturedAmount')::bigint ELSE o.captured_amount END,
        refunded_amount = CASE WHEN p.j ? 'refundedAmount' THEN (p.j->>'refundedAmount')::bigint ELSE o.refunded_amount END,
        attention = CASE WHEN p.j ? 'attention' THEN p.j->>'attention' ELSE o.attention END,
        data = CASE WHEN p.j ? 'data' THEN o.data || (p.j->'data') ELSE o.data END,
        version = o.version + 1,
        updated_at = $4::timestamptz,
        last_event_seq = o.last_event_seq + $5`;

/**
 * The order row `m` as the outbox keeps it: the JSON the store writes for an Order (rows.ts
 * orderSnapshot), dates as JavaScript's ISO strings, parentId only on a child payment.
 */
const SNAPSHOT = `jsonb_build_object('id', m.id, 'orderNo', m.order_no, 'amount', m.amount, 'currency', m.currency,
    'state', m.state, 'version', m.version, 'method', m.method, 'transactionId', m.transaction_id, 'maskedCard', m.masked_card,
    'capturedAmount', m.captured_amount, 'refundedAmount', m.refunded_amount, 'attention', m.attention, 'data', m.data,
    'createdAt', to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'updatedAt', to_char(m.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    || CASE WHEN m.parent_id IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('parentId', m.parent_id) END`;

/** The copy's columns the lean transitions check, in parameter order (knownMatch). */
export const KNOWN_COLUMNS = ['state', 'method', 'transactionId', 'maskedCard', 'capturedAmount', 'refundedAmount', 'attention'] as const;

/** WHERE terms: the row still holds the copy's KNOWN_COLUMNS, given as parameters from `$n` on. */
function knownMatch(n: number): string {
  const p = (i: number): string => `$${String(n + i)}`;
  return ` AND o.state = ${p(0)} AND o.method IS NOT DISTINCT FROM ${p(1)} AND o.transaction_id IS NOT DISTINCT FROM ${p(2)}
        AND o.masked_card IS NOT DISTINCT FROM ${p(3)} AND o.captured_amount = ${p(4)} AND o.refunded_amount = ${p(5)}
        AND o.attention IS NOT DISTINCT FROM ${p(6)}`;
}

export function buildQueries(schema: string) {
  const T = `${quoteSchema(schema)}.checkout_orders`;
  const E = `${quoteSchema(schema)}.checkout_order_events`;
  const O = `${quoteSchema(schema)}.checkout_outbox`;
  const moveWithEventWhere = (also: string): string => `WITH moved AS (
        UPDATE ${T} AS o SET ${TRANSITION_SET}
        FROM (SELECT $3::jsonb AS j) AS p
        WHERE o.id = $1 AND o.version = $2${also}
        RETURNING o.*
      ), ev AS (
        INSERT INTO ${E} (id, order_id, seq, type, source, from_state, to_state, dedupe_key, actor, data, created_at)
        SELECT $6, moved.id, moved.last_event_seq, $7, $8, $9, $10, $11, $12, $13::jsonb, $4::timestamptz FROM moved
        RETURNING *
      )`;
  const moveWithEvent = moveWithEventWhere('');
  const returning = `SELECT moved.*, ${EVENT_COLUMNS.map((c) => `ev.${c} AS ev_${c}`).join(', ')} FROM moved LEFT JOIN ev ON true`;
  const R = `${quoteSchema(schema)}.checkout_order_refunds`;
  const dueWhere = `state = ANY($1::text[]) AND updated_at < $2::timestamptz AND ${NOT_LEASED}`;
  return {
    insertOrder: `INSERT INTO ${T} (id, order_no, amount, currency, state, method, data, created_at, updated_at, parent_id)
      VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::timestamptz, $8::timestamptz, $9)
      ON CONFLICT DO NOTHING RETURNING *`,
    byId: `SELECT * FROM ${T} WHERE id = $1`,
    byOrderNo: `SELECT * FROM ${T} WHERE order_no = $1`,
    children: `SELECT * FROM ${T} WHERE parent_id = $1 ORDER BY created_at, id`,
    // The WHERE repeats the partial index's own (migration 006), so the planner can use it.
    subscriptions: `SELECT * FROM ${T} WHERE ${LIVE_SUBSCRIPTION} ORDER BY id LIMIT $1`,
    subscriptionsAfter: `SELECT * FROM ${T} WHERE ${LIVE_SUBSCRIPTION} AND id > $2 ORDER BY id LIMIT $1`,
    byTransactionId: `SELECT * FROM ${T} WHERE transaction_id = $1 ORDER BY created_at, id LIMIT 1`,
    // Compare-and-set in one statement: the version check and the write cannot be separated.
    // $3 is the patch as JSON: a key that is present is applied (even as null), absent keys stay.
    transition: `UPDATE ${T} AS o SET ${TRANSITION_SET}
      FROM (SELECT $3::jsonb AS j) AS p
      WHERE o.id = $1 AND o.version = $2
      RETURNING o.*`,
    // The compare-and-set and its event in one statement, so one round trip and one commit. The
    // event INSERT has no ON CONFLICT: a repeated dedupe key fails the whole statement with
    // unique_violation on DEDUPE_INDEX, so the order update is refused with it. $4 is also the
    // event's time; $6… are the event's columns (EVENT_PARAMS).
    transitionWithEvent: `${moveWithEvent}
      ${returning}`,
    // The same plus the hook calls it owes ($14: JSON array of {id, hook, payload}), each keeping
    // the order as the UPDATE left it; due by the database clock, as the outbox's own insert.
    transitionWithEventAndOutbox: `${moveWithEvent}, outbox AS (
        INSERT INTO ${O} (id, order_id, hook, payload, order_snapshot, next_attempt_at, created_at)
        SELECT e.id, m.id, e.hook, e.payload, ${SNAPSHOT}, now(), $4::timestamptz
        FROM moved AS m, ROWS FROM (jsonb_to_recordset($14::jsonb) AS (id text, hook text, payload jsonb)) WITH ORDINALITY AS e(id, hook, payload, n)
        ORDER BY e.n
      )
      ${returning}`,
    // The same three from the caller's copy (`known`): the store builds the order and the event
    // from the copy, the patch and its own parameters, so only the event's number comes back
    // (node-postgres parses no row of ~30 columns, dates and JSON). Data-modifying CTEs run whether
    // or not the final SELECT reads them.
    // Their WHERE also checks the columns the store's answer takes from the copy (KNOWN_COLUMNS,
    // after the other parameters), so a copy edited since it was read is refused like a stale one.
    transitionLean: `UPDATE ${T} AS o SET ${TRANSITION_SET}
      FROM (SELECT $3::jsonb AS j) AS p
      WHERE o.id = $1 AND o.version = $2${knownMatch(6)}
      RETURNING o.last_event_seq`,
    transitionWithEventLean: `${moveWithEventWhere(knownMatch(14))}
      SELECT moved.last_event_seq FROM moved`,
    transitionWithEventAndOutboxLean: `${moveWithEventWhere(knownMatch(15))}, outbox AS (
        INSERT INTO ${O} (id, order_id, hook, payload, order_snapshot, next_attempt_at, created_at)
        SELECT e.id, m.id, e.hook, e.payload, ${SNAPSHOT}, now(), $4::timestamptz
        FROM moved AS m, ROWS FROM (jsonb_to_recordset($14::jsonb) AS (id text, hook text, payload jsonb)) WITH ORDINALITY AS e(id, hook, payload, n)
        ORDER BY e.n
      )
      SELECT moved.last_event_seq FROM moved`,
    eventByKey: `SELECT * FROM ${E} WHERE order_id = $1 AND dedupe_key = $2`,
    // Bumping the counter locks the order row, so appends to one order are serialised; one
    // statement, so one round trip. A repeated dedupe key fails it with unique_violation (the
    // bump is undone with it); no row back means no such order. $1… are EVENT_PARAMS minus seq.
    appendEvent: `WITH bumped AS (
        UPDATE ${T} SET last_event_seq = last_event_seq + 1 WHERE id = $2 RETURNING last_event_seq
      )
      INSERT INTO ${E} (id, order_id, seq, type, source, from_state, to_state, dedupe_key, actor, data, created_at)
      SELECT $1, $2, bumped.last_event_seq, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::timestamptz FROM bumped
      RETURNING *`,
    listEvents: `SELECT * FROM ${E} WHERE order_id = $1 ORDER BY seq`,
    // A null bound is no bound (LIMIT NULL is LIMIT ALL).
    listEventsPage: `SELECT * FROM (SELECT * FROM ${E} WHERE order_id = $1 AND ($2::bigint IS NULL OR seq < $2::bigint)
      ORDER BY seq DESC LIMIT $3::bigint) page ORDER BY seq`,
    refundsByOrder: `SELECT * FROM ${R} WHERE order_id = $1 ORDER BY created_at, id COLLATE "C"`,
    pendingRefunds: `SELECT * FROM ${R} WHERE status = 'pending' AND created_at < $1::timestamptz ORDER BY created_at, id COLLATE "C" LIMIT $2`,
    insertRefund: `INSERT INTO ${R} (id, order_id, reference_id, reference, amount, currency, status, source, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz, $10::timestamptz)`,
    updateRefund: `UPDATE ${R} SET reference_id = $3, reference = $4, amount = $5, status = $6, updated_at = $7::timestamptz
      WHERE id = $1 AND order_id = $2`,
    deleteRefund: `DELETE FROM ${R} WHERE id = $1 AND order_id = $2`,
    // The derived total, written in the transaction that wrote the rows (the order row is locked).
    setRefunded: `UPDATE ${T} SET refunded_amount = $2 WHERE id = $1 RETURNING *`,
    // Leases use the database clock, so instances with drifting clocks still agree on expiry.
    acquireLease: `UPDATE ${T} SET lease_owner = $2, lease_until = now() + $3 * interval '1 millisecond'
      WHERE id = $1 AND (lease_owner IS NULL OR lease_until <= now() OR lease_owner = $2) RETURNING id`,
    releaseLease: `UPDATE ${T} SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2`,
    listDue: `SELECT * FROM ${T} WHERE ${dueWhere} ORDER BY updated_at, id COLLATE "C" LIMIT $3`,
    // Rows another sweeper is claiming right now are locked and skipped, never waited for or shared.
    claimDue: `WITH due AS (
        SELECT id FROM ${T} WHERE ${dueWhere} ORDER BY updated_at, id COLLATE "C" LIMIT $3 FOR UPDATE SKIP LOCKED
      )
      UPDATE ${T} AS o SET lease_owner = $4, lease_until = now() + $5 * interval '1 millisecond'
      FROM due WHERE o.id = due.id
      RETURNING o.*`,
    list: `SELECT * FROM ${T}
      WHERE ($1::text[] IS NULL OR state = ANY($1::text[]))
        AND ($2::timestamptz IS NULL OR created_at >= $2::timestamptz)
        AND ($3::timestamptz IS NULL OR created_at < $3::timestamptz)
        AND ($4::boolean IS NULL OR (attention IS NOT NULL) = $4::boolean)
      ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6`,
  };
}

export type PgQueries = ReturnType<typeof buildQueries>;
