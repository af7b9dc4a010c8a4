/**
 * The PostgreSQL store for shops running several instances on one database. Transitions are a
 * single compare-and-set UPDATE in the same transaction as their event; dedupe keys are a unique
 * index used with ON CONFLICT DO NOTHING; sweepers claim due orders with FOR UPDATE SKIP LOCKED,
 * so two instances never receive the same order while its lease lasts.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ConfigError, KitError } from '../../errors.js';
import { silentLogger } from '../../logging.js';
import type { Logger } from '../../logging.js';
import { checkRefundUpserts, mergeRefunds, refundedTotal } from '../refunds.js';
import type { RefundUpsert } from '../refunds.js';
import type { AppendResult, OrderStore, TransitionExtras, TransitionResult } from '../store.js';
import type { NewEvent, Order, OrderEvent } from '../types.js';
import { inTransaction } from './postgres-client.js';
import type { PgClientLike, PgPoolLike, PgResultLike } from './postgres-client.js';
import { migratePostgres } from './sql/migrations.js';
import { createPostgresOutbox, outboxRows } from './postgres-outbox.js';
import { createPostgresSavedCards } from './postgres-saved-cards.js';
import { buildQueries, KNOWN_COLUMNS, quoteSchema } from './postgres-queries.js';
import { guarded } from './sql/errors.js';
import { rowToEvent, rowToOrder, rowToRefund, toInt } from './sql/rows.js';
import type { Row } from './sql/rows.js';
import { checkDue, checkEvent, checkEventPage, checkLease, checkList, checkNewOrder, checkOutboxEntries, checkPatch, checkSubscriptionList } from './sql/validate.js';
import { eventParams, isDedupeConflict, patchedCopy, returnedEvent } from './postgres-rows.js';
import { uuidV7 } from '../../uuid-v7.js';

export type { PgClientLike, PgPoolLike, PgResultLike } from './postgres-client.js';
export { migratePostgres } from './sql/migrations.js';

export interface PostgresStoreOptions {
  /** A pool to use (pg.Pool or anything matching `PgPoolLike`); the store never ends it. */
  pool?: PgPoolLike;
  /** Used to create a pg.Pool when `pool` is absent; `close()` then ends that pool. */
  connectionString?: string;
  /** Schema holding the tables; created when missing. Default `public`. */
  schema?: string;
  logger?: Logger;
  /** Apply pending schema migrations on start. Default true; set false when a deploy step runs them. */
  migrate?: boolean;
  /**
   * Run the statements issued outside transactions as named prepared statements, planned once per
   * connection. Default true for a node-postgres pool (the store's own, or a given `pg.Pool`);
   * set false behind a pooler that does not keep prepared statements (PgBouncer in transaction
   * mode before 1.21). Other `PgPoolLike` pools always get plain text.
   */
  preparedStatements?: boolean;
}

export interface PostgresOrderStore extends OrderStore {
  readonly schema: string;
  /** Ends the pool if the store created it. */
  close(): Promise<void>;
}

const optionsSchema = z.object({
  pool: z.custom<PgPoolLike>((v) => typeof v === 'object' && v !== null && 'connect' in v && 'query' in v).optional(),
  connectionString: z.string().min(1).optional(),
  schema: z.string().optional(),
  logger: z.custom<Logger>((v) => typeof v === 'object' && v !== null && 'warn' in v).optional(),
  migrate: z.boolean().optional(),
  preparedStatements: z.boolean().optional(),
});

const ADAPTER = 'PostgreSQL';

function parseOptions(options: PostgresStoreOptions): PostgresStoreOptions {
  const result = optionsSchema.safeParse(options);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ConfigError(`postgres.${issue?.path.map(String).join('.') ?? ''}`, issue?.message ?? 'invalid', 'see docs/storage.md for the PostgreSQL store options');
  }
  if ((options.pool === undefined) === (options.connectionString === undefined)) {
    throw new ConfigError('postgres.pool', 'exactly one of `pool` and `connectionString` is required', 'pass a pg.Pool as `pool` or a URL as `connectionString`');
  }
  return options;
}

async function createPool(connectionString: string, logger: Logger): Promise<PgPoolLike> {
  // Loaded only here: a shop on SQLite never pays for node-postgres in memory.
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString });
  // An idle connection dropped by the server is reported here; unhandled it would crash the process.
  pool.on('error', (error) => {
    logger.error({ store: 'postgres', err: error.message }, 'idle PostgreSQL connection failed');
  });
  return pool;
}


/** node-postgres's Pool names its client class; it takes `{ name, text, values }` as a query. */
interface NamedQueryPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<PgResultLike>;
}
const isNodePostgres = (pool: PgPoolLike): boolean => 'Client' in pool;

/**
 * A cached plan whose result columns changed (a migration added a column to a table a prepared
 * `SELECT *` reads): raised before the statement runs, so running it as plain text is safe.
 */
const isStalePlan = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '0A000' && String((error as { message?: unknown }).message).includes('cached plan');

const first = (rows: Row[]): Row | undefined => rows[0];

/** Opens (or adopts) a pool, migrates the schema unless told not to, and returns the store. */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresOrderStore> {
  const { pool: given, connectionString, schema = 'public', logger = silentLogger, migrate = true } = parseOptions(options);
  quoteSchema(schema);
  const pool = given ?? (await createPool(connectionString ?? '', logger));
  const Q = buildQueries(schema);
  // Planning the transition statement costs PostgreSQL about as much CPU as running it: each
  // statement run on the pool is prepared once per connection under a name derived from its text
  // (the schema is in the text, so stores on other schemas sharing the pool never collide).
  const names = (options.preparedStatements ?? isNodePostgres(pool))
    ? new Map(Object.values(Q).map((text) => [text, `checkout_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`]))
    : null;
  const outbox = createPostgresOutbox(pool, schema);
  let ended = false;
  if (migrate) {
    try {
      await migratePostgres(pool, schema, logger);
    } catch (error) {
      if (!given) await pool.end().catch(() => undefined);
      throw new KitError('ERR_STORE', `Could not migrate the PostgreSQL order store in schema "${schema}"`, { cause: error });
    }
  }

  /** Runs a statement on the pool, prepared when `names` has it. */
  const query = async (text: string, values: unknown[]): Promise<Row[]> => {
    const name = names?.get(text);
    if (name === undefined) return (await pool.query(text, values)).rows;
    try {
      return (await (pool as unknown as NamedQueryPool).query({ name, text, values })).rows;
    } catch (error) {
      if (!isStalePlan(error)) throw error;
      return (await pool.query(text, values)).rows;
    }
  };
  /** Runs a statement on a transaction's client (plain text: a failed statement there aborts the transaction). */
  const on = (c: PgClientLike) => async (text: string, values: unknown[]): Promise<Row[]> => (await c.query(text, values)).rows;
  const one = async (text: string, values: unknown[]): Promise<Order | null> => {
    const row = first(await query(text, values));
    return row ? rowToOrder(row) : null;
  };
  const get = (id: string): Promise<Order | null> => one(Q.byId, [id]);
  const eventByKey = async (orderId: string, key: string): Promise<OrderEvent | null> => {
    const row = first(await query(Q.eventByKey, [orderId, key]));
    return row ? rowToEvent(row) : null;
  };

  /** Merges `upserts` into the order's rows and returns the order row with the derived total. */
  const writeRefunds = async (c: PgClientLike, orderId: string, upserts: readonly RefundUpsert[], now: Date): Promise<Row | undefined> => {
    const existing = (await c.query(Q.refundsByOrder, [orderId])).rows.map(rowToRefund);
    const merged = mergeRefunds(existing, upserts, { orderId, now, newId: () => uuidV7(now.getTime()) });
    for (const { kind, row } of merged.changes) {
      if (kind === 'delete') await c.query(Q.deleteRefund, [row.id, orderId]);
      else if (kind === 'insert') {
        await c.query(Q.insertRefund, [row.id, orderId, row.referenceId, row.reference, row.amount, row.currency, row.status, row.source, row.createdAt.toISOString(), row.updatedAt.toISOString()]);
      } else await c.query(Q.updateRefund, [row.id, orderId, row.referenceId, row.reference, row.amount, row.status, row.updatedAt.toISOString()]);
    }
    return first((await c.query(Q.setRefunded, [orderId, refundedTotal(merged.rows)])).rows);
  };

  /**
   * The compare-and-set with its event, on `c`: the order row as left, or null when the version
   * moved on. A repeated dedupe key throws (isDedupeConflict) and nothing is written.
   */
  const move = async (
    run: typeof query, id: string, expectedVersion: number, patch: string, event: NewEvent | undefined, now: Date, outboxJson?: string,
  ): Promise<Row | undefined> => {
    if (!event) return first(await run(Q.transition, [id, expectedVersion, patch, now.toISOString(), 0]));
    // The event's id and columns but order_id and created_at, which the statement takes from the order and $4.
    const [eventId, , ...columns] = eventParams(id, event, now);
    const values = [id, expectedVersion, patch, now.toISOString(), 1, eventId, ...columns.slice(0, -1)];
    if (outboxJson === undefined) return first(await run(Q.transitionWithEvent, values));
    return first(await run(Q.transitionWithEventAndOutbox, [...values, outboxJson]));
  };

  /**
   * The one-statement compare-and-set from the caller's copy: what it returns is built from the
   * copy, the patch as the statement read it (JSON) and the event's own parameters, as reading the
   * row would give it. Null when the version moved on.
   */
  const moveFrom = async (known: Order, expectedVersion: number, json: string, event: NewEvent | undefined, now: Date, outboxJson: string | undefined): Promise<{ order: Order; event: OrderEvent | null } | null> => {
    const id = known.id;
    const at = now.toISOString();
    let row: Row | undefined;
    let params: unknown[] | null = null;
    // Checked by the statement with the version: the answer below is built from them.
    const checked = KNOWN_COLUMNS.map((column) => known[column]);
    if (!event) row = first(await query(Q.transitionLean, [id, expectedVersion, json, at, 0, ...checked]));
    else {
      params = eventParams(id, event, now);
      const [eventId, , ...columns] = params;
      const values = [id, expectedVersion, json, at, 1, eventId, ...columns.slice(0, -1)];
      row = first(await query(outboxJson === undefined ? Q.transitionWithEventLean : Q.transitionWithEventAndOutboxLean, outboxJson === undefined ? [...values, ...checked] : [...values, outboxJson, ...checked]));
    }
    if (!row) return null;
    // A fresh copy: the patch through JSON (as jsonb read it: undefined keys absent), the copy's data through JSON too.
    const order = patchedCopy(known, JSON.parse(json) as Record<string, unknown>, now);
    if (params === null) return { order, event: null };
    const [eventId, orderId, type, source, fromState, toState, dedupeKey, actor, data] = params as [string, string, string, OrderEvent['source'], OrderEvent['fromState'], OrderEvent['toState'], string | null, string | null, string];
    return {
      order,
      event: { id: eventId, orderId, seq: toInt(row.last_event_seq, 'last_event_seq'), type, source, fromState, toState, dedupeKey, actor, data: JSON.parse(data) as Record<string, unknown>, createdAt: new Date(now.getTime()) },
    };
  };

  const transition = async (
    id: string,
    expectedVersion: number,
    patch: Parameters<OrderStore['transition']>[2],
    event?: NewEvent,
    extras?: TransitionExtras,
    known?: Order,
  ): Promise<TransitionResult> => {
    const now = new Date();
    const json = JSON.stringify(patch);
    const settled = async (): Promise<{ order: Order; event: OrderEvent | null } | null> => {
      // Without refund rows the transition is one statement (with its event and hook calls): one
      // round trip, one commit. Hook calls without an event take the transaction below.
      const owes = extras?.outbox?.length ? extras.outbox : undefined;
      const oneStatement = extras?.refunds === undefined && (owes === undefined || event !== undefined);
      if (oneStatement && known !== undefined && known.id === id && known.version === expectedVersion) {
        return moveFrom(known, expectedVersion, json, event, now, owes === undefined ? undefined : outboxRows(owes, now));
      }
      if (oneStatement) {
        const row = await move(query, id, expectedVersion, json, event, now, owes === undefined ? undefined : outboxRows(owes, now));
        return row ? { order: rowToOrder(row), event: returnedEvent(row) } : null;
      }
      return inTransaction<{ order: Order; event: OrderEvent | null } | null>(pool, async (c) => {
        const updated = await move(on(c), id, expectedVersion, json, event, now);
        if (!updated) return { commit: false, value: null };
        // The UPDATE above locks the order row: the rows and their total are written by one writer.
        const final = extras?.refunds === undefined ? updated : await writeRefunds(c, id, extras.refunds, now);
        if (!final) throw new KitError('ERR_STORE', 'The order vanished inside its own write transaction', { details: { orderId: id } });
        const order = rowToOrder(final);
        // Outbox entries keep the order as this transition leaves it, refunds included.
        if (owes !== undefined) await outbox.add(c, order, owes, now);
        return { commit: true, value: { order, event: returnedEvent(updated) } };
      });
    };
    // A dedupe conflict refuses the whole transition: the statement (or transaction) wrote nothing.
    const won = await settled().catch((error: unknown) => {
      if (isDedupeConflict(error)) return null;
      throw error;
    });
    return won ? { ok: true, ...won } : { ok: false, current: await get(id) };
  };

  const appendEvent = async (orderId: string, event: NewEvent): Promise<AppendResult> => {
    let inserted: Row | undefined;
    try {
      inserted = first(await query(Q.appendEvent, eventParams(orderId, event, new Date())));
    } catch (error) {
      if (!isDedupeConflict(error)) throw error;
      // The order already has this key (perhaps from a writer that raced us): theirs is the event.
      const existing = await eventByKey(orderId, event.dedupeKey ?? '');
      if (!existing) throw new KitError('ERR_STORE', 'A conflicting event could not be read back', { details: { orderId } });
      return { appended: false, existing };
    }
    if (!inserted) throw new KitError('ERR_ORDER_NOT_FOUND', 'No order with this id', { details: { orderId } });
    return { appended: true, event: rowToEvent(inserted) };
  };

  return {
    schema,
    create: (order) =>
      guarded(ADAPTER, 'create', async () => {
        checkNewOrder(order);
        const createdAt = (order.createdAt ?? new Date()).toISOString();
        const row = first(
          await query(Q.insertOrder, [
            order.id,
            order.orderNo,
            order.amount,
            order.currency,
            order.state ?? 'created',
            order.method ?? null,
            JSON.stringify(order.data ?? {}),
            createdAt,
            order.parentId ?? null,
          ]),
        );
        if (!row) {
          throw new KitError('ERR_ORDER_EXISTS', 'An order with this id or order number already exists', {
            details: { orderNo: order.orderNo },
          });
        }
        return rowToOrder(row);
      }),
    get: (id) => guarded(ADAPTER, 'get', () => get(id)),
    getByOrderNo: (orderNo) => guarded(ADAPTER, 'getByOrderNo', () => one(Q.byOrderNo, [orderNo])),
    getByTransactionId: (transactionId) => guarded(ADAPTER, 'getByTransactionId', () => one(Q.byTransactionId, [transactionId])),
    transition: (id, expectedVersion, patch, event, extras, known) =>
      guarded(ADAPTER, 'transition', () => {
        checkPatch(patch);
        if (event) checkEvent(event);
        if (extras?.refunds !== undefined) checkRefundUpserts(extras.refunds);
        if (extras?.outbox) checkOutboxEntries(extras.outbox);
        return transition(id, expectedVersion, patch, event, extras, known);
      }),
    listRefunds: (orderId) => guarded(ADAPTER, 'listRefunds', async () => (await query(Q.refundsByOrder, [orderId])).map(rowToRefund)),
    listPendingRefunds: (q) =>
      guarded(ADAPTER, 'listPendingRefunds', async () =>
        (await query(Q.pendingRefunds, [q.createdBefore.toISOString(), Math.max(0, q.limit)])).map(rowToRefund)),
    appendEvent: (orderId, event) =>
      guarded(ADAPTER, 'appendEvent', () => {
        checkEvent(event);
        return appendEvent(orderId, event);
      }),
    listEvents: (orderId, page) =>
      guarded(ADAPTER, 'listEvents', async () => {
        if (page === undefined) return (await query(Q.listEvents, [orderId])).map(rowToEvent);
        checkEventPage(page);
        if (page.dedupeKey !== undefined) {
          // The unique (order_id, dedupe_key) index finds it; the bounds only drop it.
          const event = await eventByKey(orderId, page.dedupeKey);
          return event === null || (page.beforeSeq !== undefined && event.seq >= page.beforeSeq) ? [] : [event];
        }
        return (await query(Q.listEventsPage, [orderId, page.beforeSeq ?? null, page.limit ?? null])).map(rowToEvent);
      }),
    acquireLease: (orderId, owner, ttlMs) =>
      guarded(ADAPTER, 'acquireLease', async () => {
        checkLease(owner, ttlMs);
        return (await query(Q.acquireLease, [orderId, owner, ttlMs])).length === 1;
      }),
    releaseLease: (orderId, owner) =>
      guarded(ADAPTER, 'releaseLease', async () => {
        await query(Q.releaseLease, [orderId, owner]);
      }),
    listDue: (q) =>
      guarded(ADAPTER, 'listDue', async () => {
        checkDue(q);
        return (await query(Q.listDue, [[...q.states], q.updatedBefore.toISOString(), q.limit])).map(rowToOrder);
      }),
    claimDue: (q) =>
      guarded(ADAPTER, 'claimDue', async () => {
        checkDue(q);
        checkLease(q.owner, q.leaseMs);
        const rows = await query(Q.claimDue, [[...q.states], q.updatedBefore.toISOString(), q.limit, q.owner, q.leaseMs]);
        // UPDATE … RETURNING has no order of its own.
        return rows.map(rowToOrder).sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime() || (a.id < b.id ? -1 : 1));
      }),
    list: (q) =>
      guarded(ADAPTER, 'list', async () => {
        checkList(q);
        const rows = await query(Q.list, [
          q.states ? [...q.states] : null,
          q.createdFrom?.toISOString() ?? null,
          q.createdTo?.toISOString() ?? null,
          q.attention ?? null,
          q.limit,
          q.offset ?? 0,
        ]);
        return rows.map(rowToOrder);
      }),
    listChildren: (parentId) => guarded(ADAPTER, 'listChildren', async () => (await query(Q.children, [parentId])).map(rowToOrder)),
    listSubscriptions: (list) =>
      guarded(ADAPTER, 'listSubscriptions', async () => {
        checkSubscriptionList(list);
        const rows = list.after === undefined ? await query(Q.subscriptions, [list.limit]) : await query(Q.subscriptionsAfter, [list.limit, list.after]);
        return rows.map(rowToOrder);
      }),
    claimOutbox: outbox.claimOutbox,
    completeOutbox: outbox.completeOutbox,
    failOutbox: outbox.failOutbox,
    releaseOutbox: outbox.releaseOutbox,
    listOutbox: outbox.listOutbox,
    countOutbox: outbox.countOutbox,
    savedCards: createPostgresSavedCards(pool, schema),
    close: () =>
      guarded(ADAPTER, 'close', async () => {
        if (given || ended) return;
        ended = true;
        await pool.end();
      }),
  };
}
