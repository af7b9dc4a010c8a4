/**
 * The SQLite store's outbox. Entries are inserted inside the transition's own write (see
 * `add`); a claim is one write transaction, and SQLite runs one writer at a time across every
 * connection to the file, so the check for other owners' leases and the leasing cannot be split.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { NewOutboxEntry, OrderStore, OutboxEntry } from '../store.js';
import type { Order } from '../types.js';
import { uuidV7 } from '../../uuid-v7.js';
import { guarded } from './sql/errors.js';
import { orderSnapshot, rowToOutbox } from './sql/rows.js';
import type { Row } from './sql/rows.js';
import { checkOutboxClaim, checkOutboxFailure, checkOutboxList } from './sql/validate.js';
import type { GroupCommit } from './sqlite-group-commit.js';

const O = 'checkout_outbox';
const ADAPTER = 'SQLite';

type OutboxMethods = Pick<OrderStore, 'claimOutbox' | 'completeOutbox' | 'failOutbox' | 'releaseOutbox' | 'listOutbox' | 'countOutbox'>;

export interface SqliteOutbox extends OutboxMethods {
  /** Inserts `entries` owed by the transition that left the order as `order`; call inside its write. */
  add(order: Order, entries: readonly NewOutboxEntry[], now: number): void;
}

export function createSqliteOutbox(db: BetterSqlite3.Database, commits: Pick<GroupCommit, 'write'>): SqliteOutbox {
  const insert = db.prepare(`INSERT INTO ${O} (id, order_id, hook, payload, order_snapshot, next_attempt_at, created_at)
    VALUES (@id, @orderId, @hook, @payload, @order, @now, @now)`);
  // Orders with a due entry and none under another owner's unexpired lease, oldest entry first.
  const claimable = db.prepare<[{ owner: string; now: number; orderId: string | null; limit: number }], { order_id: string }>(`
    SELECT o.order_id FROM ${O} AS o
    WHERE o.status = 'pending' AND o.next_attempt_at <= @now AND (@orderId IS NULL OR o.order_id = @orderId)
      AND NOT EXISTS (SELECT 1 FROM ${O} AS x WHERE x.order_id = o.order_id AND x.status = 'pending'
        AND x.lease_owner IS NOT NULL AND x.lease_owner <> @owner AND x.lease_until > @now)
    GROUP BY o.order_id ORDER BY MIN(o.position) LIMIT @limit`);
  const lease = db.prepare<[{ owner: string; until: number; orderId: string }], Row>(
    `UPDATE ${O} SET lease_owner = @owner, lease_until = @until WHERE order_id = @orderId AND status = 'pending' RETURNING *`,
  );
  const complete = db.prepare<[string]>(`DELETE FROM ${O} WHERE id = ?`);
  const fail = db.prepare<[{ id: string; error: string; retryAt: number | null }]>(`UPDATE ${O} SET
      attempts = attempts + 1, last_error = @error, lease_owner = NULL, lease_until = NULL,
      status = CASE WHEN @retryAt IS NULL THEN 'dead' ELSE status END,
      next_attempt_at = COALESCE(@retryAt, next_attempt_at)
    WHERE id = @id`);
  const release = db.prepare<[string, string]>(
    `UPDATE ${O} SET lease_owner = NULL, lease_until = NULL WHERE order_id = ? AND lease_owner = ? AND status = 'pending'`,
  );
  const list = db.prepare<[{ status: string | null; orderId: string | null; limit: number }], Row>(`SELECT * FROM ${O}
    WHERE (@status IS NULL OR status = @status) AND (@orderId IS NULL OR order_id = @orderId) ORDER BY position LIMIT @limit`);
  const count = db.prepare<[], { status: string; n: number }>(`SELECT status, COUNT(*) AS n FROM ${O} GROUP BY status`);

  return {
    add(order, entries, now) {
      const snapshot = orderSnapshot(order);
      for (const e of entries) {
        insert.run({ id: uuidV7(now), orderId: order.id, hook: e.hook, payload: JSON.stringify(e.payload), order: snapshot, now });
      }
    },
    claimOutbox: (claim) =>
      guarded(ADAPTER, 'claimOutbox', () => {
        checkOutboxClaim(claim);
        // Most rounds of an idle loop find nothing: answer those without taking the write lock.
        const peek = { owner: claim.owner, now: Date.now(), orderId: claim.orderId ?? null, limit: 1 };
        if (claim.limit === 0 || claimable.all(peek).length === 0) return [];
        return commits.write(() => {
          const now = Date.now();
          const orders = claimable.all({ owner: claim.owner, now, orderId: claim.orderId ?? null, limit: claim.limit });
          const rows = orders.flatMap(({ order_id }) => lease.all({ owner: claim.owner, until: now + claim.leaseMs, orderId: order_id }));
          return rows.map(rowToOutbox).sort((a: OutboxEntry, b: OutboxEntry) => a.position - b.position);
        });
      }),
    completeOutbox: (id) =>
      guarded(ADAPTER, 'completeOutbox', () =>
        commits.write(() => {
          complete.run(id);
        }),
      ),
    failOutbox: (id, failure) =>
      guarded(ADAPTER, 'failOutbox', () => {
        checkOutboxFailure(failure);
        return commits.write(() => {
          fail.run({ id, error: failure.error, retryAt: failure.retryInMs === null ? null : Date.now() + failure.retryInMs });
        });
      }),
    releaseOutbox: (orderId, owner) =>
      guarded(ADAPTER, 'releaseOutbox', () =>
        commits.write(() => {
          release.run(orderId, owner);
        }),
      ),
    listOutbox: (query) =>
      guarded(ADAPTER, 'listOutbox', () => {
        checkOutboxList(query);
        return list.all({ status: query.status ?? null, orderId: query.orderId ?? null, limit: query.limit }).map(rowToOutbox);
      }),
    countOutbox: () =>
      guarded(ADAPTER, 'countOutbox', () => {
        const counts = { pending: 0, dead: 0 };
        for (const row of count.all()) if (row.status === 'pending' || row.status === 'dead') counts[row.status] = row.n;
        return counts;
      }),
  };
}
