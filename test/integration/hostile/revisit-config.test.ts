/**
 * The revisit round's window at the top of its range on every kit store: 100 years back is a date
 * each store reads; a longer window (before the earliest instant a Date holds, ±8.64e15 ms, the
 * round would be silently off on one store and failing on another) is refused at start-up.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../server/errors.js';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { GatewayPort } from '../../../server/orders/engine-types.js';
import { REVISIT_WITHIN_MAX_MS, createSweeper } from '../../../server/orders/sweeper.js';
import { makeOrder } from '../orders/fixtures.js';
import { kitStores } from '../stores/kit-stores.js';

const stores = kitStores('revisit-config');

describe.each(stores)('revisitWithinMs at the top of its range (%s)', (_name, open) => {
  it('100 years back: an old paid order is still asked about; a longer window is refused', async () => {
    const { store, done } = await open();
    try {
      const engine = createReconcileEngine({ store });
      const order = await makeOrder(store, { amount: 1_000, state: 'paid', createdAt: new Date(Date.now() - 50 * 365 * 24 * 3_600_000) });
      const asked: string[] = [];
      const gateway: GatewayPort = {
        queryOrders: (nos) => {
          asked.push(...nos);
          return Promise.resolve(new Map());
        },
      };
      const sweeper = createSweeper({ engine, store, gateway, stuckAfterMs: 1, revisitWithinMs: REVISIT_WITHIN_MAX_MS });
      const report = await sweeper.runOnce();
      expect(report.errors).toBe(0);
      expect(asked).toEqual([order.orderNo]);
      expect(report.revisits).toMatchObject({ checked: 1, unknown: 1 });
      expect(() => createSweeper({ engine, store, gateway, revisitWithinMs: Number.MAX_SAFE_INTEGER })).toThrow(ConfigError);
    } finally {
      await done();
    }
  });
});
