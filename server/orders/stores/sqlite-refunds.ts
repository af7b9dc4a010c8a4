/**
 * The SQLite store's refund ledger: statements and the write done inside a transition's
 * savepoint. The rows are merged with the one rule every store applies (`mergeRefunds`), and
 * the derived total is returned for the order row written in the same savepoint.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { uuidV7 } from '../../uuid-v7.js';
import { mergeRefunds, refundedTotal } from '../refunds.js';
import type { Refund, RefundUpsert } from '../refunds.js';
import { rowToRefund } from './sql/rows.js';
import type { Row } from './sql/rows.js';

const R = 'checkout_order_refunds';

interface RefundParams {
  id: string;
  orderId: string;
  referenceId: string | null;
  reference: string | null;
  amount: number;
  currency: string;
  status: string;
  source: string;
  createdAt: number;
  updatedAt: number;
}

export interface SqliteRefundStatements {
  byOrder: BetterSqlite3.Statement<[string], Row>;
  pending: BetterSqlite3.Statement<[{ before: number; limit: number }], Row>;
  insert: BetterSqlite3.Statement<[RefundParams]>;
  update: BetterSqlite3.Statement<[RefundParams]>;
  remove: BetterSqlite3.Statement<[string]>;
}

export function prepareRefundStatements(db: BetterSqlite3.Database): SqliteRefundStatements {
  return {
    byOrder: db.prepare(`SELECT * FROM ${R} WHERE order_id = ? ORDER BY created_at, id`),
    pending: db.prepare(`SELECT * FROM ${R} WHERE status = 'pending' AND created_at < @before ORDER BY created_at, id LIMIT @limit`),
    insert: db.prepare(`INSERT INTO ${R} (id, order_id, reference_id, reference, amount, currency, status, source, created_at, updated_at)
      VALUES (@id, @orderId, @referenceId, @reference, @amount, @currency, @status, @source, @createdAt, @updatedAt)`),
    update: db.prepare(`UPDATE ${R} SET reference_id = @referenceId, reference = @reference, amount = @amount, status = @status,
      updated_at = @updatedAt WHERE id = @id`),
    remove: db.prepare(`DELETE FROM ${R} WHERE id = ?`),
  };
}

const params = (row: Refund): RefundParams => ({
  id: row.id,
  orderId: row.orderId,
  referenceId: row.referenceId,
  reference: row.reference,
  amount: row.amount,
  currency: row.currency,
  status: row.status,
  source: row.source,
  createdAt: row.createdAt.getTime(),
  updatedAt: row.updatedAt.getTime(),
});

/** Writes `upserts` for the order and returns its refunded amount after them. Runs inside the transition's savepoint. */
export function writeRefunds(s: SqliteRefundStatements, orderId: string, upserts: readonly RefundUpsert[], now: number): number {
  const existing = s.byOrder.all(orderId).map(rowToRefund);
  const merged = mergeRefunds(existing, upserts, { orderId, now: new Date(now), newId: () => uuidV7(now) });
  for (const change of merged.changes) {
    if (change.kind === 'delete') s.remove.run(change.row.id);
    else if (change.kind === 'insert') s.insert.run(params(change.row));
    else s.update.run(params(change.row));
  }
  return refundedTotal(merged.rows);
}
