/**
 * The in-memory OrderStore: the reference implementation of every rule in `../store.ts`.
 * Everything lives in this process and is lost on restart, so it warns once in production.
 * Each method does its work synchronously after its first line, so every method is atomic with
 * respect to the others (the event loop never interleaves two of them halfway).
 */
import { randomUUID } from 'node:crypto';
import { KitError, ValidationError } from '../../errors.js';
import { silentLogger } from '../../logging.js';
import type { Logger } from '../../logging.js';
import { checkRefundUpserts, mergeRefunds, refundedTotal } from '../refunds.js';
import type { Refund } from '../refunds.js';
import type { AppendResult, ClaimDue, DueQuery, ListQuery, OrderStore, TransitionResult } from '../store.js';
import { createMemoryOutbox } from './memory-outbox.js';
import { createMemorySavedCards } from './memory-saved-cards.js';
import { initialOrder, type NewEvent, type NewOrder, type Order, type OrderEvent, type OrderPatch } from '../types.js';
import { checkEventPage } from './sql/validate.js';

export interface MemoryStoreOptions {
  /** Receives the production warning. */
  logger?: Logger;
  /** Clock for `updatedAt`, `createdAt` and lease expiry. Defaults to the system clock. */
  now?: () => Date;
}

interface Lease {
  owner: string;
  expiresAt: number;
}

const copy = <T>(value: T): T => structuredClone(value);
/**
 * `data` as a database keeps it: JSON (a Date becomes its ISO text, an undefined value no key).
 * What JSON cannot hold (a BigInt, a cycle) is refused before anything is written.
 */
function json(value: Record<string, unknown>, field: string): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  } catch (error) {
    throw new ValidationError([{ field, message: `must be JSON (${error instanceof Error ? error.message : String(error)})` }]);
  }
}

const sortRefunds = (rows: Refund[]): Refund[] =>
  [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** Active, or cancelled and not yet asked about once more (`subscriptionCancelSettled`), as listSubscriptions promises. */
function liveSubscription(data: Record<string, unknown>): boolean {
  const status = data.subscriptionStatus ?? 'active';
  return status === 'active' || (status === 'cancelled' && data.subscriptionCancelSettled !== true);
}

export function createMemoryStore(options: MemoryStoreOptions = {}): OrderStore {
  const now = options.now ?? ((): Date => new Date());
  if (process.env.NODE_ENV === 'production') {
    (options.logger ?? silentLogger).warn(
      { store: 'memory' },
      'The memory order store loses every order on restart: use the SQLite or PostgreSQL store in production.',
    );
  }

  const orders = new Map<string, Order>();
  const byOrderNo = new Map<string, string>();
  const byTransactionId = new Map<string, string>();
  const events = new Map<string, OrderEvent[]>();
  const leases = new Map<string, Lease>();
  const refunds = new Map<string, Refund[]>();
  const outbox = createMemoryOutbox(now);

  const leased = (id: string, at: number): Lease | undefined => {
    const lease = leases.get(id);
    return lease !== undefined && lease.expiresAt > at ? lease : undefined;
  };

  /** `data`: the event's data as JSON, made before any write (json() may refuse it). */
  const makeEvent = (orderId: string, event: NewEvent, data: Record<string, unknown>): OrderEvent => {
    const list = events.get(orderId) ?? [];
    const stored: OrderEvent = {
      id: randomUUID(),
      orderId,
      seq: list.length + 1,
      type: event.type,
      source: event.source,
      fromState: event.fromState ?? null,
      toState: event.toState ?? null,
      dedupeKey: event.dedupeKey ?? null,
      actor: event.actor ?? null,
      data,
      createdAt: now(),
    };
    list.push(stored);
    events.set(orderId, list);
    return stored;
  };

  const findByKey = (orderId: string, key: string | null | undefined): OrderEvent | undefined =>
    key == null ? undefined : events.get(orderId)?.find((e) => e.dedupeKey === key);

  const applyPatch = (order: Order, patch: OrderPatch): Order => {
    const { data, ...rest } = patch;
    // Absent and explicitly undefined fields both leave the stored value as it is.
    const fields = Object.fromEntries(Object.entries(rest as Record<string, unknown>).filter(([, v]) => v !== undefined));
    const next: Order = { ...order, ...copy(fields), version: order.version + 1, updatedAt: now() };
    if (data !== undefined) next.data = { ...order.data, ...json(data, 'patch.data') };
    return next;
  };

  /** Due orders not under an unexpired lease, whoever holds it. */
  const due = (query: DueQuery): Order[] => {
    const at = now().getTime();
    const before = query.updatedBefore.getTime();
    return [...orders.values()]
      .filter((o) => query.states.includes(o.state) && o.updatedAt.getTime() < before && !leased(o.id, at))
      .sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime())
      .slice(0, Math.max(0, query.limit));
  };

  return {
    async create(input: NewOrder): Promise<Order> {
      await Promise.resolve();
      if (orders.has(input.id) || byOrderNo.has(input.orderNo)) {
        throw new KitError('ERR_ORDER_EXISTS', `Order ${input.orderNo} already exists`, {
          details: { orderNo: input.orderNo, id: input.id },
        });
      }
      const createdAt = input.createdAt ?? now();
      const order: Order = { ...initialOrder(input, createdAt), data: json(input.data ?? {}, 'data') };
      orders.set(order.id, order);
      byOrderNo.set(order.orderNo, order.id);
      return copy(order);
    },

    async get(id) {
      await Promise.resolve();
      const order = orders.get(id);
      return order ? copy(order) : null;
    },

    async getByOrderNo(orderNo) {
      await Promise.resolve();
      const id = byOrderNo.get(orderNo);
      return id === undefined ? null : copy(orders.get(id) ?? null);
    },

    async getByTransactionId(transactionId) {
      await Promise.resolve();
      const id = byTransactionId.get(transactionId);
      return id === undefined ? null : copy(orders.get(id) ?? null);
    },

    // The caller's copy (`known`) is ignored: reading the map costs nothing, and the reference
    // implementation checks the conformance suite's expectations against the stored order.
    async transition(id, expectedVersion, patch, event, extras): Promise<TransitionResult> {
      await Promise.resolve();
      if (extras?.refunds !== undefined) checkRefundUpserts(extras.refunds);
      const order = orders.get(id);
      if (!order || order.version !== expectedVersion || findByKey(id, event?.dedupeKey)) {
        return { ok: false, current: order ? copy(order) : null };
      }
      const next = applyPatch(order, patch);
      const eventData = event ? json(event.data ?? {}, 'event.data') : null;
      if (extras?.refunds !== undefined) {
        const merged = mergeRefunds(refunds.get(id) ?? [], copy(extras.refunds), { orderId: id, now: now(), newId: randomUUID });
        refunds.set(id, merged.rows);
        next.refundedAmount = refundedTotal(merged.rows);
      }
      orders.set(id, next);
      if (next.transactionId !== order.transactionId) {
        if (order.transactionId !== null) byTransactionId.delete(order.transactionId);
        if (next.transactionId !== null) byTransactionId.set(next.transactionId, id);
      }
      const stored = event && eventData ? makeEvent(id, event, eventData) : null;
      if (extras?.outbox) outbox.add(next, extras.outbox);
      return { ok: true, order: copy(next), event: stored ? copy(stored) : null };
    },

    async appendEvent(orderId, event): Promise<AppendResult> {
      await Promise.resolve();
      if (!orders.has(orderId)) {
        throw new KitError('ERR_ORDER_NOT_FOUND', 'Order not found', { details: { orderId } });
      }
      const existing = findByKey(orderId, event.dedupeKey);
      if (existing) return { appended: false, existing: copy(existing) };
      return { appended: true, event: copy(makeEvent(orderId, event, json(event.data ?? {}, 'event.data'))) };
    },

    async listEvents(orderId, page) {
      await Promise.resolve();
      const all = events.get(orderId) ?? [];
      if (page === undefined) return copy(all);
      checkEventPage(page);
      const { beforeSeq, limit, dedupeKey } = page;
      const keyed = dedupeKey === undefined ? all : all.filter((e) => e.dedupeKey === dedupeKey);
      const below = beforeSeq === undefined ? keyed : keyed.filter((e) => e.seq < beforeSeq);
      return copy(limit === undefined ? below : below.slice(-limit));
    },

    async listRefunds(orderId) {
      await Promise.resolve();
      return copy(sortRefunds(refunds.get(orderId) ?? []));
    },

    async listPendingRefunds(query) {
      await Promise.resolve();
      const before = query.createdBefore.getTime();
      const pending = [...refunds.values()].flat().filter((r) => r.status === 'pending' && r.createdAt.getTime() < before);
      return copy(sortRefunds(pending).slice(0, Math.max(0, query.limit)));
    },

    async acquireLease(orderId, owner, ttlMs) {
      await Promise.resolve();
      const at = now().getTime();
      const lease = leased(orderId, at);
      if (!orders.has(orderId) || (lease !== undefined && lease.owner !== owner)) return false;
      leases.set(orderId, { owner, expiresAt: at + ttlMs });
      return true;
    },

    async releaseLease(orderId, owner) {
      await Promise.resolve();
      if (leases.get(orderId)?.owner === owner) leases.delete(orderId);
    },

    async listDue(query) {
      await Promise.resolve();
      return copy(due(query));
    },

    async claimDue(query: ClaimDue) {
      await Promise.resolve();
      const found = due(query);
      const expiresAt = now().getTime() + query.leaseMs;
      for (const order of found) leases.set(order.id, { owner: query.owner, expiresAt });
      return copy(found);
    },

    async list(query: ListQuery) {
      await Promise.resolve();
      const from = query.createdFrom?.getTime() ?? -Infinity;
      const to = query.createdTo?.getTime() ?? Infinity;
      const offset = query.offset ?? 0;
      const found = [...orders.values()]
        .filter((o) => query.states === undefined || query.states.includes(o.state))
        // createdFrom inclusive, createdTo exclusive: consecutive ranges never share an order.
        .filter((o) => o.createdAt.getTime() >= from && o.createdAt.getTime() < to)
        .filter((o) => query.attention === undefined || (o.attention !== null) === query.attention)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
        .slice(offset, offset + Math.max(0, query.limit));
      return copy(found);
    },

    async listChildren(parentId: string) {
      await Promise.resolve();
      const found = [...orders.values()]
        .filter((o) => o.parentId === parentId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
      return copy(found);
    },

    async listSubscriptions(query) {
      await Promise.resolve();
      const { after } = query;
      const found = [...orders.values()]
        .filter((o) => o.parentId === undefined && typeof o.data.recurringId === 'string' && liveSubscription(o.data) && (after === undefined || o.id > after))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, Math.max(0, query.limit));
      return copy(found);
    },

    claimOutbox: outbox.claimOutbox,
    completeOutbox: outbox.completeOutbox,
    failOutbox: outbox.failOutbox,
    releaseOutbox: outbox.releaseOutbox,
    listOutbox: outbox.listOutbox,
    countOutbox: outbox.countOutbox,
    savedCards: createMemorySavedCards(now),

    async close() {
      await Promise.resolve();
      outbox.clear();
      orders.clear();
      byOrderNo.clear();
      byTransactionId.clear();
      events.clear();
      leases.clear();
      refunds.clear();
    },
  };
}
