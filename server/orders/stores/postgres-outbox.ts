/**
 * The PostgreSQL store's outbox. Entries are inserted in the transition's transaction (`add`).
 * A claim locks the candidate orders' rows `FOR UPDATE SKIP LOCKED` (a targeted claim waits
 * instead), then, holding those locks, leases the pending entries of the orders no other owner
 * holds: two instances claiming the same order are serialised on its row, and the later one's
 * statement sees the earlier one's leases, so an entry is never handed to two of them at once.
 */
import type { NewOutboxEntry, OrderStore } from '../store.js';
import type { Order } from '../types.js';
import { uuidV7 } from '../../uuid-v7.js';
import { inTransaction } from './postgres-client.js';
import type { PgClientLike, PgPoolLike } from './postgres-client.js';
import { quoteSchema } from './postgres-queries.js';
import { guarded } from './sql/errors.js';
import { orderSnapshot, rowToOutbox } from './sql/rows.js';
import { checkOutboxClaim, checkOutboxFailure, checkOutboxList } from './sql/validate.js';

const ADAPTER = 'PostgreSQL';

type OutboxMethods = Pick<OrderStore, 'claimOutbox' | 'completeOutbox' | 'failOutbox' | 'releaseOutbox' | 'listOutbox' | 'countOutbox'>;

export interface PostgresOutbox extends OutboxMethods {
  /** Inserts `entries` owed by the transition that left the order as `order`, on its transaction's client. */
  add(client: PgClientLike, order: Order, entries: readonly NewOutboxEntry[], now: Date): Promise<void>;
}

function buildOutboxQueries(schema: string) {
  const T = `${quoteSchema(schema)}.checkout_orders`;
  const O = `${quoteSchema(schema)}.checkout_outbox`;
  const lockOrders = `SELECT id FROM ${T} WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`;
  return {
    // Due by the database clock, which claims compare with, whatever this process's clock says.
    insert: `INSERT INTO ${O} (id, order_id, hook, payload, order_snapshot, next_attempt_at, created_at)
      SELECT e.id, $1, e.hook, e.payload, $2::jsonb, now(), $3::timestamptz
      FROM jsonb_to_recordset($4::jsonb) AS e(id text, hook text, payload jsonb)`,
    candidates: `SELECT order_id FROM ${O}
      WHERE status = 'pending' AND next_attempt_at <= now() AND ($1::text IS NULL OR order_id = $1)
      GROUP BY order_id ORDER BY MIN(position) LIMIT $2`,
    lockOrders: `${lockOrders} SKIP LOCKED`,
    lockOrdersWaiting: lockOrders,
    // A new statement, so a new snapshot: it sees every lease committed before the locks were taken.
    lease: `UPDATE ${O} AS o SET lease_owner = $2, lease_until = now() + $3 * interval '1 millisecond'
      WHERE o.order_id = ANY($1::text[]) AND o.status = 'pending'
        AND NOT EXISTS (SELECT 1 FROM ${O} AS x WHERE x.order_id = o.order_id AND x.status = 'pending'
          AND x.lease_owner IS NOT NULL AND x.lease_owner <> $2 AND x.lease_until > now())
      RETURNING o.*`,
    complete: `DELETE FROM ${O} WHERE id = $1`,
    fail: `UPDATE ${O} SET attempts = attempts + 1, last_error = $2, lease_owner = NULL, lease_until = NULL,
        status = CASE WHEN $3::bigint IS NULL THEN 'dead' ELSE status END,
        next_attempt_at = CASE WHEN $3::bigint IS NULL THEN next_attempt_at ELSE now() + $3::bigint * interval '1 millisecond' END
      WHERE id = $1`,
    release: `UPDATE ${O} SET lease_owner = NULL, lease_until = NULL WHERE order_id = $1 AND lease_owner = $2 AND status = 'pending'`,
    list: `SELECT * FROM ${O} WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR order_id = $2) ORDER BY position LIMIT $3`,
    count: `SELECT status, COUNT(*) AS n FROM ${O} GROUP BY status`,
  };
}

/** Entries as the outbox statements take them: a JSON array of {id, hook, payload}, in order. */
export function outboxRows(entries: readonly NewOutboxEntry[], now: Date): string {
  return JSON.stringify(entries.map((e) => ({ id: uuidV7(now.getTime()), hook: e.hook, payload: e.payload })));
}

export function createPostgresOutbox(pool: PgPoolLike, schema: string): PostgresOutbox {
  const Q = buildOutboxQueries(schema);
  const run = async (text: string, values: unknown[]): Promise<void> => {
    await pool.query(text, values);
  };

  return {
    async add(client, order, entries, now) {
      await client.query(Q.insert, [order.id, orderSnapshot(order), now.toISOString(), outboxRows(entries, now)]);
    },
    claimOutbox: (claim) =>
      guarded(ADAPTER, 'claimOutbox', async () => {
        checkOutboxClaim(claim);
        if (claim.limit === 0) return [];
        const rows = await inTransaction(pool, async (c) => {
          const found = (await c.query(Q.candidates, [claim.orderId ?? null, claim.limit])).rows.map((r) => String(r.order_id));
          if (found.length === 0) return { commit: false, value: [] };
          // One order named: wait for a transition holding its row rather than leave its hooks to the next round.
          const locked = (await c.query(claim.orderId === undefined ? Q.lockOrders : Q.lockOrdersWaiting, [found])).rows.map((r) => String(r.id));
          if (locked.length === 0) return { commit: false, value: [] };
          return { commit: true, value: (await c.query(Q.lease, [locked, claim.owner, claim.leaseMs])).rows };
        });
        return rows.map(rowToOutbox).sort((a, b) => a.position - b.position);
      }),
    completeOutbox: (id) => guarded(ADAPTER, 'completeOutbox', () => run(Q.complete, [id])),
    failOutbox: (id, failure) =>
      guarded(ADAPTER, 'failOutbox', () => {
        checkOutboxFailure(failure);
        return run(Q.fail, [id, failure.error, failure.retryInMs]);
      }),
    releaseOutbox: (orderId, owner) => guarded(ADAPTER, 'releaseOutbox', () => run(Q.release, [orderId, owner])),
    listOutbox: (query) =>
      guarded(ADAPTER, 'listOutbox', async () => {
        checkOutboxList(query);
        return (await pool.query(Q.list, [query.status ?? null, query.orderId ?? null, query.limit])).rows.map(rowToOutbox);
      }),
    countOutbox: () =>
      guarded(ADAPTER, 'countOutbox', async () => {
        const counts = { pending: 0, dead: 0 };
        for (const row of (await pool.query(Q.count, [])).rows) {
          if (row.status === 'pending' || row.status === 'dead') counts[row.status] = Number(row.n);
        }
        return counts;
      }),
  };
}
