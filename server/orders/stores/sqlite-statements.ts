/**
 * Every statement the SQLite store runs, prepared once when the store is built. Lists of states
 * travel as one JSON array parameter (`json_each`) or one state per call, and optional filters as
 * NULL, so the text of each statement is fixed and never assembled per call.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Row } from './sql/rows.js';

export interface OrderParams {
  id: string;
  orderNo: string;
  amount: number;
  currency: string;
  state: string;
  version: number;
  method: string | null;
  transactionId: string | null;
  maskedCard: string | null;
  capturedAmount: number;
  refundedAmount: number;
  attention: string | null;
  data: string;
  createdAt: number;
  updatedAt: number;
  lastEventSeq: number;
}

/** What a compare-and-set from the caller's copy writes: the columns a transition may change. */
/**
 * The columns a transition from the caller's copy writes from that copy, as the copy has them:
 * the compare-and-set checks them with the version, so a copy edited since the store returned it
 * is refused like a stale one instead of being written (`data` is merged, not checked).
 */
export interface KnownColumns {
  knownState: string;
  knownMethod: string | null;
  knownTransactionId: string | null;
  knownMaskedCard: string | null;
  knownCapturedAmount: number;
  knownRefundedAmount: number;
  knownAttention: string | null;
}

export type UpdateFromParams = Pick<
  OrderParams,
  'id' | 'state' | 'version' | 'method' | 'transactionId' | 'maskedCard' | 'capturedAmount' | 'refundedAmount' | 'attention' | 'data' | 'updatedAt'
> &
  KnownColumns & {
    expectedVersion: number;
    /** Events the transition adds to the order's count (0 or 1). */
    added: number;
  };

/** The WHERE terms that hold when the row still has the copy's `KnownColumns` (`o` the row's alias, or ''). */
const knownMatch = (o: string): string =>
  `${o}state = @knownState AND ${o}method IS @knownMethod AND ${o}transaction_id IS @knownTransactionId
      AND ${o}masked_card IS @knownMaskedCard AND ${o}captured_amount = @knownCapturedAmount
      AND ${o}refunded_amount = @knownRefundedAmount AND ${o}attention IS @knownAttention`;

export interface EventParams {
  id: string;
  orderId: string;
  seq: number;
  type: string;
  source: string;
  fromState: string | null;
  toState: string | null;
  dedupeKey: string | null;
  actor: string | null;
  data: string;
  createdAt: number;
}

export interface ListParams {
  states: string | null;
  from: number | null;
  to: number | null;
  /** null: any; 1: flagged only; 0: unflagged only. */
  attention: number | null;
  limit: number;
  offset: number;
}

type Stmt<P extends unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;

export interface SqliteStatements {
  insertOrder: Stmt<[OrderParams]>;
  byId: Stmt<[string], Row>;
  byOrderNo: Stmt<[string], Row>;
  byTransactionId: Stmt<[string], Row>;
  updateOrder: Stmt<[OrderParams & { expectedVersion: number }]>;
  /** The compare-and-set from the caller's copy: the event count grows by `added` in place (appends do not bump the version). */
  updateOrderFrom: Stmt<[UpdateFromParams]>;
  bumpEventSeq: Stmt<[string], { last_event_seq: number }>;
  eventByKey: Stmt<[string, string], Row>;
  insertEvent: Stmt<[EventParams]>;
  /** Inserts nothing (changes 0) when the order already has an event with this dedupe key. */
  insertEventOnce: Stmt<[EventParams]>;
  /**
   * The event of a compare-and-set from the caller's copy, numbered from the order row: returns
   * its seq, or nothing when the order is not at `expectedVersion` or already has the dedupe key.
   */
  insertEventAt: Stmt<[Omit<EventParams, 'seq'> & KnownColumns & { expectedVersion: number }], { seq: number }>;
  listEvents: Stmt<[string], Row>;
  /** The newest `limit` events below `before`, `seq` ascending. */
  listEventsPage: Stmt<[{ orderId: string; before: number; limit: number }], Row>;
  acquireLease: Stmt<[{ id: string; owner: string; until: number; now: number }]>;
  setLease: Stmt<[{ id: string; owner: string; until: number }]>;
  releaseLease: Stmt<[string, string]>;
  listDue: Stmt<[{ state: string; before: number; now: number; limit: number }], Row>;
  list: Stmt<[ListParams], Row>;
}

const T = 'checkout_orders';
const E = 'checkout_order_events';

export function prepareStatements(db: BetterSqlite3.Database): SqliteStatements {
  return {
    insertOrder: db.prepare(`INSERT INTO ${T}
      (id, order_no, amount, currency, state, version, method, transaction_id, masked_card,
       captured_amount, refunded_amount, attention, data, created_at, updated_at, last_event_seq)
      VALUES (@id, @orderNo, @amount, @currency, @state, @version, @method, @transactionId, @maskedCard,
       @capturedAmount, @refundedAmount, @attention, @data, @createdAt, @updatedAt, @lastEventSeq)
      ON CONFLICT DO NOTHING`),
    byId: db.prepare(`SELECT * FROM ${T} WHERE id = ?`),
    byOrderNo: db.prepare(`SELECT * FROM ${T} WHERE order_no = ?`),
    byTransactionId: db.prepare(`SELECT * FROM ${T} WHERE transaction_id = ? ORDER BY created_at, id LIMIT 1`),
    // The version in the WHERE clause is the compare-and-set, even inside the transaction.
    updateOrder: db.prepare(`UPDATE ${T} SET
      state = @state, version = @version, method = @method, transaction_id = @transactionId,
      masked_card = @maskedCard, captured_amount = @capturedAmount, refunded_amount = @refundedAmount,
      attention = @attention, data = @data, updated_at = @updatedAt, last_event_seq = @lastEventSeq
      WHERE id = @id AND version = @expectedVersion`),
    updateOrderFrom: db.prepare(`UPDATE ${T} SET
      state = @state, version = @version, method = @method, transaction_id = @transactionId,
      masked_card = @maskedCard, captured_amount = @capturedAmount, refunded_amount = @refundedAmount,
      attention = @attention, data = @data, updated_at = @updatedAt, last_event_seq = last_event_seq + @added
      WHERE id = @id AND version = @expectedVersion AND ${knownMatch('')}`),
    bumpEventSeq: db.prepare(`UPDATE ${T} SET last_event_seq = last_event_seq + 1 WHERE id = ? RETURNING last_event_seq`),
    eventByKey: db.prepare(`SELECT * FROM ${E} WHERE order_id = ? AND dedupe_key = ?`),
    insertEvent: db.prepare(`INSERT INTO ${E}
      (id, order_id, seq, type, source, from_state, to_state, dedupe_key, actor, data, created_at)
      VALUES (@id, @orderId, @seq, @type, @source, @fromState, @toState, @dedupeKey, @actor, @data, @createdAt)`),
    insertEventOnce: db.prepare(`INSERT INTO ${E}
      (id, order_id, seq, type, source, from_state, to_state, dedupe_key, actor, data, created_at)
      VALUES (@id, @orderId, @seq, @type, @source, @fromState, @toState, @dedupeKey, @actor, @data, @createdAt)
      ON CONFLICT (order_id, dedupe_key) DO NOTHING`),
    // \`WHERE true\`: SQLite's parser needs it between INSERT … SELECT and ON CONFLICT.
    insertEventAt: db.prepare(`INSERT INTO ${E}
      (id, order_id, seq, type, source, from_state, to_state, dedupe_key, actor, data, created_at)
      SELECT @id, o.id, o.last_event_seq + 1, @type, @source, @fromState, @toState, @dedupeKey, @actor, @data, @createdAt
      FROM ${T} AS o WHERE o.id = @orderId AND o.version = @expectedVersion AND ${knownMatch('o.')} AND true
      ON CONFLICT (order_id, dedupe_key) DO NOTHING
      RETURNING seq`),
    listEvents: db.prepare(`SELECT * FROM ${E} WHERE order_id = ? ORDER BY seq`),
    listEventsPage: db.prepare(`SELECT * FROM (SELECT * FROM ${E} WHERE order_id = @orderId AND seq < @before
      ORDER BY seq DESC LIMIT @limit) ORDER BY seq`),
    acquireLease: db.prepare(`UPDATE ${T} SET lease_owner = @owner, lease_until = @until
      WHERE id = @id AND (lease_owner IS NULL OR lease_until <= @now OR lease_owner = @owner)`),
    setLease: db.prepare(`UPDATE ${T} SET lease_owner = @owner, lease_until = @until WHERE id = @id`),
    releaseLease: db.prepare(`UPDATE ${T} SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?`),
    // One state per call: with `state IN (…)` SQLite sorts every due row of every listed state
    // before applying the LIMIT (a sweep of n orders then costs n²); with `state = ?` it walks
    // checkout_orders_due in order and stops after LIMIT rows.
    listDue: db.prepare(`SELECT * FROM ${T}
      WHERE state = @state AND updated_at < @before
        AND (lease_owner IS NULL OR lease_until <= @now)
      ORDER BY updated_at, id LIMIT @limit`),
    list: db.prepare(`SELECT * FROM ${T}
      WHERE (@states IS NULL OR state IN (SELECT value FROM json_each(@states)))
        AND (@from IS NULL OR created_at >= @from)
        AND (@to IS NULL OR created_at < @to)
        AND (@attention IS NULL OR (attention IS NOT NULL) = (@attention = 1))
      ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`),
  };
}
