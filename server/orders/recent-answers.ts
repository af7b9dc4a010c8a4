/**
 * The gateway's recent answers about orders, per process: what the reconcile engine reuses to
 * confirm a notification for an order that is being flooded. A notification's signature covers
 * seven fields only, and the shopper's browser holds such a signed body: posted again and again
 * with other unsigned fields, each post is a new fact, and each would cost a query (and a refund
 * search). The engine reuses an answer kept here only while the order's quiet run is full, i.e.
 * while its notifications change nothing (see engine.ts).
 *
 * An answer is kept with the version of the order it was asked for and when it was asked (a
 * monotonic clock): it is reused only for that same version (any write to the order, by any
 * process, makes it stale) and only for `windowMs` after the query started. The engine never lets
 * a reused answer dismiss a claim (503 instead), so the claim's retry more than `windowMs` later
 * gets a fresh answer. At most `limit` answers are kept;
 * the oldest go first, so a flood over many orders costs queries, never memory.
 */
import type { GatewayOrderFact } from './engine-types.js';
import type { Order } from './types.js';

/** How long an answer is reused: well under the `Retry-After` (5 s) the kit asks the gateway for. */
export const RECENT_ANSWER_MS = 2_000;
/** Orders whose answers are kept at once. */
export const RECENT_ANSWER_LIMIT = 1_000;

export interface RecentAnswer {
  version: number;
  /** When the query that gave it started (ms, the engine's clock). */
  askedAt: number;
  /** Null: the gateway did not know the order. Read only: it is handed to every reuse. */
  answer: GatewayOrderFact | null;
}

export interface RecentAnswers {
  /** The answer asked for this version of the order within the window, if any. */
  recent(order: Pick<Order, 'id' | 'version'>, at: number): RecentAnswer | undefined;
  /** Keeps the answer of a query started at `at` for this version of the order. */
  keep(order: Pick<Order, 'id' | 'version'>, answer: GatewayOrderFact | null, at: number): void;
  /** Drops the order's answer unless it was asked for `current`'s version (null: the order is gone). */
  settled(orderId: string, current: Pick<Order, 'version'> | null): void;
  /** How many answers are kept (tests). */
  readonly size: number;
}

export function createRecentAnswers(windowMs = RECENT_ANSWER_MS, limit = RECENT_ANSWER_LIMIT): RecentAnswers {
  // Insertion order is about the order of `askedAt` (an answer kept again is moved to the end;
  // overlapping queries may land out of order): the oldest come first to be evicted, and an
  // expired entry behind a younger one waits for the limit, so memory stays bounded either way.
  const kept = new Map<string, RecentAnswer>();

  return {
    recent(order, at) {
      const found = kept.get(order.id);
      if (found === undefined) return undefined;
      if (found.version !== order.version) {
        kept.delete(order.id);
        return undefined;
      }
      // A clock set back does not stretch the window.
      const age = at - found.askedAt;
      return age >= 0 && age < windowMs ? found : undefined;
    },
    keep(order, answer, at) {
      kept.delete(order.id);
      for (const [id, old] of kept) {
        if (kept.size < limit && at - old.askedAt < windowMs) break;
        kept.delete(id);
      }
      kept.set(order.id, { version: order.version, askedAt: at, answer });
    },
    settled(orderId, current) {
      const found = kept.get(orderId);
      if (found !== undefined && (current === null || found.version !== current.version)) kept.delete(orderId);
    },
    get size() {
      return kept.size;
    },
  };
}
