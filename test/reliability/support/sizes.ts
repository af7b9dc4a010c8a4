/**
 * The two sizes every scenario runs at: `reduced` inside `npm test` (seconds), `full` from
 * `npm run reliability` (minutes). One implementation per scenario reads its counts from here.
 */
export type SizeName = 'full' | 'reduced';

export interface Size {
  name: SizeName;
  seed: number;
  /** notifyTimeScale: the gateway's 36-hour retry schedule × this (0.0001 ≈ 11 s). */
  chaos: { orders: number; controlOrders: number; batch: number; batchesInFlight: number; notifyTimeScale: number };
  /** Notifications ahead of the gateway's query (sweeper off). */
  ahead: { orders: number; notifyTimeScale: number };
  faults: { perCell: number };
  crash: { checkouts: number; killAfterOrders: number };
  multi: { orders: number; copies: number };
  /** Checkouts per hook-outbox run (SQLite, then two PostgreSQL instances). */
  outbox: { orders: number };
  load: { shoppers: number; durationMs: number };
  /**
   * Seeded cases per route target, and the wall-clock budget of one target: a target stops
   * taking new cases once it is spent (the report counts the cases actually sent), so the full
   * run finishes on a busy machine.
   */
  fuzz: { casesPerRoute: number; msPerRoute: number };
  security: {
    rateLimit: number;
    /** Admin sign-in: wrong passwords per account before the lock, attempts made while locked, window and session life. */
    signIn: { perAccount: number; whileLocked: number; windowMs: number; sessionTtlMs: number };
  };
  /** Paid orders, staff refunds posted at once per order, copies of each refund notification, orders raced at once. */
  refunds: { orders: number; parallel: number; copies: number; ordersInFlight: number };
  /** Paid orders changed at the gateway with their notifications lost, copies of each lost notification replayed, orders acted on at once. */
  missed: { orders: number; copies: number; ordersInFlight: number };
}

export const FULL: Size = {
  name: 'full',
  seed: 20_260_101,
  chaos: { orders: 500, controlOrders: 25, batch: 50, batchesInFlight: 4, notifyTimeScale: 0.0001 },
  ahead: { orders: 200, notifyTimeScale: 0.0001 },
  faults: { perCell: 10 },
  crash: { checkouts: 100, killAfterOrders: 50 },
  multi: { orders: 200, copies: 3 },
  outbox: { orders: 60 },
  load: { shoppers: 200, durationMs: 60_000 },
  fuzz: { casesPerRoute: 10_000, msPerRoute: 45_000 },
  security: { rateLimit: 30, signIn: { perAccount: 20, whileLocked: 40, windowMs: 60_000, sessionTtlMs: 10_000 } },
  refunds: { orders: 60, parallel: 10, copies: 3, ordersInFlight: 4 },
  missed: { orders: 300, copies: 3, ordersInFlight: 8 },
};

export const REDUCED: Size = {
  name: 'reduced',
  seed: 20_260_101,
  chaos: { orders: 48, controlOrders: 4, batch: 50, batchesInFlight: 2, notifyTimeScale: 0.00004 },
  ahead: { orders: 16, notifyTimeScale: 0.00004 },
  faults: { perCell: 1 },
  crash: { checkouts: 20, killAfterOrders: 10 },
  multi: { orders: 16, copies: 2 },
  outbox: { orders: 6 },
  load: { shoppers: 20, durationMs: 5_000 },
  fuzz: { casesPerRoute: 120, msPerRoute: 60_000 },
  security: { rateLimit: 5, signIn: { perAccount: 5, whileLocked: 3, windowMs: 20_000, sessionTtlMs: 5000 } },
  refunds: { orders: 4, parallel: 10, copies: 2, ordersInFlight: 2 },
  missed: { orders: 10, copies: 2, ordersInFlight: 4 },
};
