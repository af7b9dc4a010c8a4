/**
 * The memory store's outbox: entries kept in insertion (= position) order, each with its lease.
 * Like the rest of the memory store, every method does its work synchronously, so it is atomic.
 */
import { randomUUID } from 'node:crypto';
import type { NewOutboxEntry, OrderStore, OutboxEntry } from '../store.js';
import type { Order } from '../types.js';

interface Held {
  entry: OutboxEntry;
  leaseOwner: string | null;
  leaseUntil: number;
}

type OutboxMethods = Pick<OrderStore, 'claimOutbox' | 'completeOutbox' | 'failOutbox' | 'releaseOutbox' | 'listOutbox' | 'countOutbox'>;

export interface MemoryOutbox extends OutboxMethods {
  /** Stores `entries` owed by the transition that left the order as `order`. */
  add(order: Order, entries: readonly NewOutboxEntry[]): void;
  clear(): void;
}

const copy = <T>(value: T): T => structuredClone(value);

export function createMemoryOutbox(now: () => Date): MemoryOutbox {
  const held = new Map<string, Held>();
  let position = 0;

  const pending = (): Held[] => [...held.values()].filter((h) => h.entry.status === 'pending');

  return {
    add(order, entries) {
      for (const e of entries) {
        const at = now();
        position += 1;
        const entry: OutboxEntry = {
          id: randomUUID(),
          orderId: order.id,
          position,
          hook: e.hook,
          payload: copy(e.payload),
          order: copy(order),
          status: 'pending',
          attempts: 0,
          nextAttemptAt: at,
          lastError: null,
          createdAt: at,
        };
        held.set(entry.id, { entry, leaseOwner: null, leaseUntil: 0 });
      }
    },

    clear() {
      held.clear();
    },

    async claimOutbox(claim) {
      await Promise.resolve();
      const at = now().getTime();
      const busy = new Set<string>();
      const due: string[] = [];
      for (const h of pending()) {
        const { orderId } = h.entry;
        if (claim.orderId !== undefined && orderId !== claim.orderId) continue;
        if (h.leaseOwner !== null && h.leaseOwner !== claim.owner && h.leaseUntil > at) busy.add(orderId);
        if (h.entry.nextAttemptAt.getTime() <= at && !due.includes(orderId)) due.push(orderId);
      }
      const chosen = new Set(due.filter((id) => !busy.has(id)).slice(0, Math.max(0, claim.limit)));
      const claimed = pending().filter((h) => chosen.has(h.entry.orderId));
      for (const h of claimed) {
        h.leaseOwner = claim.owner;
        h.leaseUntil = at + claim.leaseMs;
      }
      return claimed.map((h) => copy(h.entry));
    },

    async completeOutbox(id) {
      await Promise.resolve();
      held.delete(id);
    },

    async failOutbox(id, failure) {
      await Promise.resolve();
      const h = held.get(id);
      if (!h) return;
      h.entry.attempts += 1;
      h.entry.lastError = failure.error;
      if (failure.retryInMs === null) h.entry.status = 'dead';
      else h.entry.nextAttemptAt = new Date(now().getTime() + failure.retryInMs);
      h.leaseOwner = null;
    },

    async releaseOutbox(orderId, owner) {
      await Promise.resolve();
      for (const h of pending()) if (h.entry.orderId === orderId && h.leaseOwner === owner) h.leaseOwner = null;
    },

    async listOutbox(query) {
      await Promise.resolve();
      return [...held.values()]
        .map((h) => h.entry)
        .filter((e) => (query.status === undefined || e.status === query.status) && (query.orderId === undefined || e.orderId === query.orderId))
        .slice(0, Math.max(0, query.limit))
        .map(copy);
    },

    async countOutbox() {
      await Promise.resolve();
      const counts = { pending: 0, dead: 0 };
      for (const h of held.values()) counts[h.entry.status] += 1;
      return counts;
    },
  };
}
