/** What every group of conformance cases shares: the store under test and order fixtures. */
import { randomUUID } from 'node:crypto';
import type { OrderStore } from '../../orders/store.js';
import type { NewOrder } from '../../orders/types.js';

export interface ConformanceFixture {
  /** An empty store, used by one case only. */
  store: OrderStore;
  /** Runs after the case; when absent the suite calls `store.close()` if the store has one. */
  cleanup?(): Promise<void>;
}

export type ConformanceFactory = () => Promise<ConformanceFixture>;

export interface ConformanceOptions {
  /** Events appended to one order in the large-history case. Default 2000. */
  largeHistoryEvents?: number;
  /** Timeout of the slow cases (large history, many orders), ms. Default 120000. */
  slowTimeoutMs?: number;
  /** How long the lease-expiry cases wait for a 1 ms lease to lapse, ms. Default 50. */
  leaseWaitMs?: number;
  /** Run the child-payment cases (`listChildren`, `parentId`), which subscriptions need. Default true. */
  subscriptions?: boolean;
}

export interface ConformanceContext {
  /** The store of the running case. */
  readonly store: OrderStore;
  readonly options: Required<ConformanceOptions>;
  /** A new order with a unique id and order number; `overrides` win. */
  newOrder(overrides?: Partial<NewOrder>): NewOrder;
}

export const DEFAULT_OPTIONS: Required<ConformanceOptions> = {
  largeHistoryEvents: 2000,
  slowTimeoutMs: 120_000,
  leaseWaitMs: 50,
  subscriptions: true,
};

export function orderFactory(): (overrides?: Partial<NewOrder>) => NewOrder {
  const tag = randomUUID().slice(0, 8);
  let n = 0;
  return (overrides = {}) => {
    n += 1;
    return { id: randomUUID(), orderNo: `conf-${tag}-${n}`, amount: 1000, currency: 'EUR', ...overrides };
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Creates orders one after another, a few ms apart, so creation and update times are distinct and ordered. */
export async function createInOrder(ctx: ConformanceContext, orders: NewOrder[]): Promise<void> {
  for (const order of orders) {
    await ctx.store.create(order);
    await sleep(3);
  }
}
