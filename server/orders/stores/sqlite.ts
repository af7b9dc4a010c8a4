/**
 * The embedded default store: one SQLite file through better-sqlite3. WAL mode lets readers run
 * beside the single writer; writes are IMMEDIATE transactions (the write lock is taken up front,
 * so two connections never deadlock upgrading a read), shared by the writes of one event-loop
 * turn (group commit: one fsync for all, each write in its own savepoint), and busy_timeout makes
 * other connections, in this process or another, wait for it instead of failing. That fsync runs
 * on libuv's thread pool rather than inside COMMIT (sqlite-wal-sync.ts); writes are acknowledged
 * only once they are on disk.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type BetterSqlite3 from 'better-sqlite3';
import { z } from 'zod';
import { ConfigError, KitError } from '../../errors.js';
import { silentLogger } from '../../logging.js';
import type { Logger } from '../../logging.js';
import { checkRefundUpserts } from '../refunds.js';
import type { AppendResult, ClaimDue, DueQuery, ListQuery, OrderStore, TransitionExtras, TransitionResult } from '../store.js';
import { initialOrder, type NewEvent, type NewOrder, type Order, type OrderPatch } from '../types.js';
import { guarded } from './sql/errors.js';
import { rowToEvent, rowToOrder, rowToRefund } from './sql/rows.js';
import type { Row } from './sql/rows.js';
import { checkDue, checkEvent, checkEventPage, checkLease, checkList, checkNewOrder, checkOutboxEntries, checkPatch, checkSubscriptionList } from './sql/validate.js';
import { configureDurability, createDurableWrites } from './sqlite-durable.js';
import type { WalSync } from './sqlite-wal-sync.js';
import { migrateSqlite } from './sql/migrations.js';
import { createSqliteOutbox } from './sqlite-outbox.js';
import { prepareChildStatements } from './sqlite-children.js';
import { createSqliteSavedCards } from './sqlite-saved-cards.js';
import { prepareStatements } from './sqlite-statements.js';
import { prepareRefundStatements, writeRefunds } from './sqlite-refunds.js';
import type { EventParams, KnownColumns } from './sqlite-statements.js';
import { applyPatch, eventParams, knownColumns, orderParams, seqOf, storedEvent, updateParams } from './sqlite-rows.js';
import { merged } from '../../objects.js';

/** Where the store keeps its file when neither `path` nor `database` is given (relative to the working directory). */
export const DEFAULT_SQLITE_PATH = 'data/checkout.sqlite';

export interface SqliteStoreOptions {
  /** Database file; its directory is created when missing. `:memory:` gives a private in-memory database. */
  path?: string;
  /** An already open better-sqlite3 database to use instead of `path`; the store never closes it. */
  database?: BetterSqlite3.Database;
  logger?: Logger;
  /** How long a write waits for another connection's write lock, in ms. Default 5000. */
  busyTimeoutMs?: number;
  /**
   * Checkpoint the WAL from a background thread (default true for a file) instead of inside
   * the commit that fills it; see sqlite-checkpointer.ts. Ignored for `:memory:`.
   */
  backgroundCheckpoints?: boolean;
  /**
   * How each commit reaches the disk before its write settles. true (default): the connection
   * runs `synchronous=NORMAL` and the store fsyncs the WAL on libuv's thread pool. false:
   * `synchronous=FULL`, SQLite fsyncs inside COMMIT, on the event loop. Either way a write is
   * acknowledged only once it is on disk. Ignored for `:memory:`.
   */
  backgroundSync?: boolean;
}

export interface SqliteOrderStore extends OrderStore {
  /** Closes the database if the store opened it. */
  close(): Promise<void>;
}

const optionsSchema = z.object({
  path: z.string().min(1).optional(),
  database: z.custom<BetterSqlite3.Database>((v) => typeof v === 'object' && v !== null && 'prepare' in v).optional(),
  logger: z.custom<Logger>((v) => typeof v === 'object' && v !== null && 'warn' in v).optional(),
  busyTimeoutMs: z.number().int().min(0).optional(),
  backgroundCheckpoints: z.boolean().optional(),
  backgroundSync: z.boolean().optional(),
});

const ADAPTER = 'SQLite';

function parseOptions(options: SqliteStoreOptions): SqliteStoreOptions {
  const result = optionsSchema.safeParse(options);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ConfigError(`sqlite.${issue?.path.map(String).join('.') ?? ''}`, issue?.message ?? 'invalid', 'see docs/storage.md for the SQLite store options');
  }
  if (options.path !== undefined && options.database !== undefined) {
    throw new ConfigError('sqlite.path', 'both `path` and `database` were given', 'pass one of them');
  }
  return options;
}

function openDatabase(path: string): BetterSqlite3.Database {
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  return new Database(path);
}

export function createSqliteStore(options: SqliteStoreOptions = {}): SqliteOrderStore {
  const { path, database, logger = silentLogger, busyTimeoutMs = 5000, backgroundCheckpoints = true, backgroundSync = true } = parseOptions(options);
  const owned = database === undefined;
  const db = database ?? openDatabase(path ?? DEFAULT_SQLITE_PATH);
  const durability = { logger, backgroundCheckpoints, backgroundSync };
  let walSync: WalSync | null = null;
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    walSync = configureDurability(db, durability);
    db.pragma('foreign_keys = ON');
    migrateSqlite(db, logger);
  } catch (error) {
    walSync?.close();
    if (owned) db.close();
    throw new KitError('ERR_STORE', `Could not open the SQLite order store at ${db.name}`, { cause: error });
  }
  const s = prepareStatements(db);
  const children = prepareChildStatements(db);
  const refunds = prepareRefundStatements(db);

  const read = (row: Row | undefined): Order | null => (row ? rowToOrder(row) : null);

  /**
   * The compare-and-set from the copy the caller read at `expectedVersion`: no read of the row.
   * The version in both statements' WHERE is the check; only a refusal reads the row, to return it.
   */
  const transitionFrom = (known: Order, expectedVersion: number, patch: OrderPatch, event: NewEvent | undefined, extras: TransitionExtras | undefined): TransitionResult => {
    const id = known.id;
    const now = Date.now();
    const checked = knownColumns(known);
    let written: EventParams | null = null;
    if (event) {
      const params = eventParams(id, 0, event, now);
      // The event goes first, as below: a stale version, a copy edited since it was read or a
      // repeated dedupe key inserts nothing.
      const at = merged(params, checked) as EventParams & KnownColumns & { expectedVersion: number };
      at.expectedVersion = expectedVersion;
      const inserted = s.insertEventAt.get(at);
      if (inserted === undefined) return { ok: false, current: read(s.byId.get(id)) };
      params.seq = inserted.seq;
      written = params;
    }
    const next = applyPatch(known, patch, now);
    if (extras?.refunds !== undefined) next.refundedAmount = writeRefunds(refunds, id, extras.refunds, now);
    const params = updateParams(next, checked, expectedVersion, written === null ? 0 : 1);
    if (s.updateOrderFrom.run(params).changes !== 1) {
      // With an event inserted, unreachable while this transaction holds the write lock; throwing rolls it back.
      if (written !== null) throw new KitError('ERR_STORE', 'The order changed inside its own write transaction', { details: { orderId: id } });
      return { ok: false, current: read(s.byId.get(id)) };
    }
    const order: Order = { ...next, data: JSON.parse(params.data) as Record<string, unknown> };
    if (extras?.outbox?.length) outbox.add(order, extras.outbox, now);
    return { ok: true, order, event: written === null ? null : storedEvent(written) };
  };

  // Each runs inside a group-commit savepoint (sqlite-group-commit.ts), never on its own.
  const transitionWork = (id: string, expectedVersion: number, patch: OrderPatch, event: NewEvent | undefined, extras: TransitionExtras | undefined, known: Order | undefined): TransitionResult => {
    // Without an event, nothing checks the version before the refund rows are written: a refused
    // transition would leave them behind, so that case reads the row and checks first.
    if (known !== undefined && known.id === id && known.version === expectedVersion && (event !== undefined || extras?.refunds === undefined)) {
      return transitionFrom(known, expectedVersion, patch, event, extras);
    }
    const row = s.byId.get(id);
    if (!row) return { ok: false, current: null };
    const current = rowToOrder(row);
    if (current.version !== expectedVersion) return { ok: false, current };
    const now = Date.now();
    const seq = seqOf(row) + (event ? 1 : 0);
    const written = event ? eventParams(id, seq, event, now) : null;
    // The event goes first: the unique (order_id, dedupe_key) index is the duplicate check, and a
    // repeat has then written nothing at all.
    if (written !== null && s.insertEventOnce.run(written).changes === 0) return { ok: false, current };
    const next = applyPatch(current, patch, now);
    // The refunded amount is derived from the rows written in this same savepoint.
    if (extras?.refunds !== undefined) next.refundedAmount = writeRefunds(refunds, id, extras.refunds, now);
    const params = orderParams(next, seq);
    if (s.updateOrder.run(merged(params, { expectedVersion })).changes !== 1) {
      // Unreachable while this transaction holds the write lock; throwing rolls the event back too.
      throw new KitError('ERR_STORE', 'The order changed inside its own write transaction', { details: { orderId: id } });
    }
    // What was written, as a read would return it (data through JSON), without reading it back.
    const order: Order = { ...next, data: JSON.parse(params.data) as Record<string, unknown> };
    if (extras?.outbox?.length) outbox.add(order, extras.outbox, now);
    return { ok: true, order, event: written === null ? null : storedEvent(written) };
  };

  const appendWork = (orderId: string, event: NewEvent): AppendResult => {
    if (event.dedupeKey) {
      const existing = s.eventByKey.get(orderId, event.dedupeKey);
      if (existing) return { appended: false, existing: rowToEvent(existing) };
    }
    const bumped = s.bumpEventSeq.get(orderId);
    if (!bumped) throw new KitError('ERR_ORDER_NOT_FOUND', 'No order with this id', { details: { orderId } });
    const params = eventParams(orderId, bumped.last_event_seq, event, Date.now());
    s.insertEvent.run(params);
    return { appended: true, event: storedEvent(params) };
  };

  /** The oldest due rows of each state, merged: `limit` rows in (updated_at, id) order. */
  const dueRows = (query: DueQuery, now: number): Row[] => {
    if (query.limit === 0) return [];
    const before = query.updatedBefore.getTime();
    const rows = [...new Set(query.states)].flatMap((state) => s.listDue.all({ state, before, now, limit: query.limit }));
    rows.sort((a, b) => Number(a.updated_at) - Number(b.updated_at) || (String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0));
    return rows.slice(0, query.limit);
  };

  const claimWork = (query: ClaimDue): Order[] => {
    const now = Date.now();
    const rows = dueRows(query, now);
    for (const row of rows) s.setLease.run({ id: String(row.id), owner: query.owner, until: now + query.leaseMs });
    return rows.map(rowToOrder);
  };
  const commits = createDurableWrites(db, walSync, durability);
  const outbox = createSqliteOutbox(db, commits);

  return {
    create: (order: NewOrder) =>
      guarded(ADAPTER, 'create', () => {
        checkNewOrder(order);
        const createdAt = order.createdAt ?? new Date();
        const stored: Order = initialOrder(order, createdAt);
        const params = orderParams(stored, 0);
        return commits.write(() => {
          if (s.insertOrder.run(params).changes === 0) {
            throw new KitError('ERR_ORDER_EXISTS', 'An order with this id or order number already exists', {
              details: { orderNo: order.orderNo },
            });
          }
          if (order.parentId !== undefined) children.setParent.run(order.parentId, order.id);
          const row = s.byId.get(order.id);
          if (!row) throw new KitError('ERR_STORE', 'A new order could not be read back', { details: { orderNo: order.orderNo } });
          return rowToOrder(row);
        });
      }),
    get: (id) => guarded(ADAPTER, 'get', () => read(s.byId.get(id))),
    getByOrderNo: (orderNo) => guarded(ADAPTER, 'getByOrderNo', () => read(s.byOrderNo.get(orderNo))),
    getByTransactionId: (transactionId) =>
      guarded(ADAPTER, 'getByTransactionId', () => read(s.byTransactionId.get(transactionId))),
    transition: (id, expectedVersion, patch, event, extras, known) =>
      guarded(ADAPTER, 'transition', () => {
        checkPatch(patch);
        if (event) checkEvent(event);
        if (extras?.refunds !== undefined) checkRefundUpserts(extras.refunds);
        if (extras?.outbox) checkOutboxEntries(extras.outbox);
        return commits.write(() => transitionWork(id, expectedVersion, patch, event, extras, known));
      }),
    listRefunds: (orderId) => guarded(ADAPTER, 'listRefunds', () => refunds.byOrder.all(orderId).map(rowToRefund)),
    listPendingRefunds: (query) =>
      guarded(ADAPTER, 'listPendingRefunds', () =>
        refunds.pending.all({ before: query.createdBefore.getTime(), limit: Math.max(0, query.limit) }).map(rowToRefund)),
    appendEvent: (orderId, event) =>
      guarded(ADAPTER, 'appendEvent', () => {
        checkEvent(event);
        return commits.write(() => appendWork(orderId, event));
      }),
    listEvents: (orderId, page) =>
      guarded(ADAPTER, 'listEvents', () => {
        if (page === undefined) return s.listEvents.all(orderId).map(rowToEvent);
        checkEventPage(page);
        if (page.dedupeKey !== undefined) {
          // The unique (order_id, dedupe_key) index finds it; the bounds only drop it.
          const row = s.eventByKey.get(orderId, page.dedupeKey);
          const event = row === undefined ? null : rowToEvent(row);
          return event === null || (page.beforeSeq !== undefined && event.seq >= page.beforeSeq) ? [] : [event];
        }
        // LIMIT -1 is SQLite's "no limit".
        return s.listEventsPage.all({ orderId, before: page.beforeSeq ?? Number.MAX_SAFE_INTEGER, limit: page.limit ?? -1 }).map(rowToEvent);
      }),
    acquireLease: (orderId, owner, ttlMs) =>
      guarded(ADAPTER, 'acquireLease', () => {
        checkLease(owner, ttlMs);
        return commits.write(() => {
          const now = Date.now();
          return s.acquireLease.run({ id: orderId, owner, until: now + ttlMs, now }).changes === 1;
        });
      }),
    releaseLease: (orderId, owner) =>
      guarded(ADAPTER, 'releaseLease', () => {
        return commits.write(() => {
          s.releaseLease.run(orderId, owner);
        });
      }),
    listDue: (query) =>
      guarded(ADAPTER, 'listDue', () => {
        checkDue(query);
        return dueRows(query, Date.now()).map(rowToOrder);
      }),
    claimDue: (query) =>
      guarded(ADAPTER, 'claimDue', () => {
        checkDue(query);
        checkLease(query.owner, query.leaseMs);
        return commits.write(() => claimWork(query));
      }),
    list: (query: ListQuery) =>
      guarded(ADAPTER, 'list', () => {
        checkList(query);
        return s.list
          .all({
            states: query.states ? JSON.stringify(query.states) : null,
            from: query.createdFrom?.getTime() ?? null,
            to: query.createdTo?.getTime() ?? null,
            attention: query.attention === undefined ? null : Number(query.attention),
            limit: query.limit,
            offset: query.offset ?? 0,
          })
          .map(rowToOrder);
      }),
    listChildren: (parentId: string) => guarded(ADAPTER, 'listChildren', () => children.list.all(parentId).map(rowToOrder)),
    listSubscriptions: (query) =>
      guarded(ADAPTER, 'listSubscriptions', () => {
        checkSubscriptionList(query);
        const { after, limit } = query;
        return (after === undefined ? children.subscriptions.all({ limit }) : children.subscriptionsAfter.all({ after, limit })).map(rowToOrder);
      }),
    claimOutbox: outbox.claimOutbox,
    completeOutbox: outbox.completeOutbox,
    failOutbox: outbox.failOutbox,
    releaseOutbox: outbox.releaseOutbox,
    listOutbox: outbox.listOutbox,
    countOutbox: outbox.countOutbox,
    savedCards: createSqliteSavedCards(db, commits),
    close: () =>
      guarded(ADAPTER, 'close', async () => {
        await commits.close();
        if (owned && db.open) db.close();
      }),
  };
}
