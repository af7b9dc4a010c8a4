/**
 * The SQLite statements of subscriptions: child payments (a subscription's deductions), whose
 * parent link is written in the create's own transaction, right after the insert, and read
 * through the partial index `checkout_orders_parent` (migration 005); and the live subscriptions
 * themselves, paged by id through the partial index `checkout_orders_subscriptions` (migration 006).
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Row } from './sql/rows.js';

export interface ChildStatements {
  setParent: BetterSqlite3.Statement<[string, string]>;
  list: BetterSqlite3.Statement<[string], Row>;
  subscriptions: BetterSqlite3.Statement<[{ limit: number }], Row>;
  subscriptionsAfter: BetterSqlite3.Statement<[{ after: string; limit: number }], Row>;
}

/** The partial index `checkout_orders_subscriptions`'s own WHERE (migration 006). */
const LIVE_SUBSCRIPTION = `parent_id IS NULL AND json_extract(data, '$.recurringId') IS NOT NULL
  AND (coalesce(json_extract(data, '$.subscriptionStatus'), 'active') = 'active'
      OR (json_extract(data, '$.subscriptionStatus') = 'cancelled' AND coalesce(json_extract(data, '$.subscriptionCancelSettled'), 0) <> 1))`;

export function prepareChildStatements(db: BetterSqlite3.Database): ChildStatements {
  return {
    setParent: db.prepare('UPDATE checkout_orders SET parent_id = ? WHERE id = ?'),
    list: db.prepare('SELECT * FROM checkout_orders WHERE parent_id = ? ORDER BY created_at, id'),
    // The WHERE repeats the index's own, term for term, so the planner uses the partial index; a
    // page after a cursor is its own statement so it seeks to the cursor instead of scanning to it.
    subscriptions: db.prepare(`SELECT * FROM checkout_orders WHERE ${LIVE_SUBSCRIPTION} ORDER BY id LIMIT @limit`),
    subscriptionsAfter: db.prepare(`SELECT * FROM checkout_orders WHERE ${LIVE_SUBSCRIPTION} AND id > @after ORDER BY id LIMIT @limit`),
  };
}
