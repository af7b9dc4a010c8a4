/**
 * The PostgreSQL store for shops running several instances on one database. Transitions are a
 * single compare-and-set UPDATE in the same transaction as their event; dedupe keys are a unique
 * index used with ON CONFLICT DO NOTHING; sweepers claim due orders with FOR UPDATE SKIP LOCKED,
 * so two instances never receive the same order while its lease lasts.
 */
import { z } from 'zod';
import { ConfigError, KitError } from '../../errors.js';
import { silentLogger } from '../../logging.js';
import type { Logger } from '../../logging.js';
import { checkRefundUpserts, mergeRefunds, refundedTotal } from '../refunds.js';
import type { RefundUpsert } from '../refunds.js';
import type { AppendResult, OrderStore, TransitionExtras, TransitionResult } from '../store.js';
import type { NewEvent, Order, OrderEvent } from '../types.js';
import { inTransaction } from './postgres-client.js';
import type { PgClientLike, PgPoolLike } from './postgres-client.js';
import { migratePostgres } from './sql/migrations.js';
import { createPostgresOutbox } from './postgres-outbox.js';
import { createPostgresSavedCards } from './postgres-saved-cards.js';
import { buildQueries, quoteSchema } from './postgres-queries.js';
import { guarded } from './sql/errors.js';
import { rowToEvent, rowToOrder, rowToRefund } from './sql/rows.js';
import type { Row } from './sql/rows.js';
import { checkDue, checkEvent, checkLease, checkList, checkNewOrder, checkOutboxEntries, checkPatch, checkSubscriptionList } from './sql/validate.js';
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

function eventValues(orderId: string, seq: number, event: NewEvent, now: Date): unknown[] {
  return [
    uuidV7(now.getTime()),
    orderId,
    seq,
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

const first = (rows: Row[]): Row | undefined => rows[0];

/** Opens (or adopts) a pool, migrates the schema unless told not to, and returns the store. */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresOrderStore> {
  const { pool: given, connectionString, schema = 'public', logger = silentLogger, migrate = true } = parseOptions(options);
  quoteSchema(schema);
  const pool = given ?? (await createPool(connectionString ?? '', logger));
  const Q = buildQueries(schema);
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

  const query = async (text: string, values: unknown[]): Promise<Row[]> => (await pool.query(text, values)).rows;
  const one = async (text: string, values: unknown[]): Promise<Order | null> => {
    const row = first(await query(text, values));
    return row ? rowToOrder(row) : null;
  };
  const get = (id: string): Promise<Order | null> => one(Q.byId, [id]);
  const eventByKey = async (c: PgClientLike | PgPoolLike, orderId: string, key: string): Promise<OrderEvent | null> => {
    const row = first((await c.query(Q.eventByKey, [orderId, key])).rows);
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

  const transition = async (
    id: string,
    expectedVersion: number,
    patch: Parameters<OrderStore['transition']>[2],
    event?: NewEvent,
    extras?: TransitionExtras,
  ): Promise<TransitionResult> => {
    const now = new Date();
    const won = await inTransaction<{ order: Order; event: OrderEvent | null } | null>(pool, async (c) => {
      const updated = first((await c.query(Q.transition, [id, expectedVersion, JSON.stringify(patch), now.toISOString(), event ? 1 : 0])).rows);
      if (!updated) return { commit: false, value: null };
      let inserted: Row | undefined;
      if (event) {
        inserted = first((await c.query(Q.insertEvent, eventValues(id, Number(updated.last_event_seq), event, now))).rows);
        // A dedupe conflict refuses the whole transition: roll the order update back too.
        if (!inserted) return { commit: false, value: null };
      }
      // The UPDATE above locks the order row: the rows and their total are written by one writer.
      const final = extras?.refunds === undefined ? updated : await writeRefunds(c, id, extras.refunds, now);
      if (!final) throw new KitError('ERR_STORE', 'The order vanished inside its own write transaction', { details: { orderId: id } });
      const order = rowToOrder(final);
      // Outbox entries keep the order as this transition leaves it, refunds included.
      if (extras?.outbox?.length) await outbox.add(c, order, extras.outbox, now);
      return { commit: true, value: { order, event: inserted ? rowToEvent(inserted) : null } };
    });
    return won ? { ok: true, ...won } : { ok: false, current: await get(id) };
  };

  const appendEvent = async (orderId: string, event: NewEvent): Promise<AppendResult> => {
    const outcome = await inTransaction<AppendResult | 'missing' | 'raced'>(pool, async (c) => {
      if (event.dedupeKey) {
        const existing = await eventByKey(c, orderId, event.dedupeKey);
        if (existing) return { commit: false, value: { appended: false, existing } };
      }
      const bumped = first((await c.query(Q.bumpEventSeq, [orderId])).rows);
      if (!bumped) return { commit: false, value: 'missing' };
      const inserted = first((await c.query(Q.insertEvent, eventValues(orderId, Number(bumped.last_event_seq), event, new Date()))).rows);
      // Someone appended the same key between our check and our lock: theirs is the event.
      if (!inserted) return { commit: false, value: 'raced' };
      return { commit: true, value: { appended: true, event: rowToEvent(inserted) } };
    });
    if (outcome === 'missing') throw new KitError('ERR_ORDER_NOT_FOUND', 'No order with this id', { details: { orderId } });
    if (outcome === 'raced') {
      const existing = await eventByKey(pool, orderId, event.dedupeKey ?? '');
      if (!existing) throw new KitError('ERR_STORE', 'A conflicting event could not be read back', { details: { orderId } });
      return { appended: false, existing };
    }
    return outcome;
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
    transition: (id, expectedVersion, patch, event, extras) =>
      guarded(ADAPTER, 'transition', () => {
        checkPatch(patch);
        if (event) checkEvent(event);
        if (extras?.refunds !== undefined) checkRefundUpserts(extras.refunds);
        if (extras?.outbox) checkOutboxEntries(extras.outbox);
        return transition(id, expectedVersion, patch, event, extras);
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
    listEvents: (orderId) => guarded(ADAPTER, 'listEvents', async () => (await query(Q.listEvents, [orderId])).map(rowToEvent)),
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
