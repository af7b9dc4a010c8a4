/**
 * The SQLite statements of child payments (a subscription's deductions): the parent link is
 * written in the create's own transaction, right after the insert, and read through the
 * partial index `checkout_orders_parent` (migration 005).
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Row } from './sql/rows.js';

export interface ChildStatements {
  setParent: BetterSqlite3.Statement<[string, string]>;
  list: BetterSqlite3.Statement<[string], Row>;
}

export function prepareChildStatements(db: BetterSqlite3.Database): ChildStatements {
  return {
    setParent: db.prepare('UPDATE checkout_orders SET parent_id = ? WHERE id = ?'),
    list: db.prepare('SELECT * FROM checkout_orders WHERE parent_id = ? ORDER BY created_at, id'),
  };
}
