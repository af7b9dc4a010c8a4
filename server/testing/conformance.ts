/**
 * The conformance suite every OrderStore adapter must pass, the kit's own and yours. Call it
 * from a vitest test file with a factory that returns an empty store; each case gets its own
 * store and runs its cleanup afterwards. See docs/storage.md for a complete example.
 */
import { afterEach, beforeEach, describe } from 'vitest';
import type { OrderStore } from '../orders/store.js';
import { DEFAULT_OPTIONS, orderFactory } from './conformance/context.js';
import type { ConformanceContext, ConformanceFactory, ConformanceFixture, ConformanceOptions } from './conformance/context.js';
import { childCases } from './conformance/children.js';
import { dueCases } from './conformance/due.js';
import { eventCases } from './conformance/events.js';
import { leaseCases } from './conformance/leases.js';
import { listCases } from './conformance/list.js';
import { orderCases } from './conformance/orders.js';
import { refundCases } from './conformance/refunds.js';
import { outboxCases } from './conformance/outbox.js';
import { savedCardCases } from './conformance/saved-cards.js';
import { transitionCases } from './conformance/transitions.js';
import { valueCases } from './conformance/values.js';

export type { ConformanceFactory, ConformanceFixture, ConformanceOptions } from './conformance/context.js';

export function describeOrderStoreConformance(name: string, factory: ConformanceFactory, options: ConformanceOptions = {}): void {
  describe(`OrderStore conformance: ${name}`, () => {
    let fixture: ConformanceFixture | undefined;
    const ctx: ConformanceContext = {
      get store(): OrderStore {
        if (!fixture) throw new Error('the store factory has not produced a store for this case');
        return fixture.store;
      },
      options: { ...DEFAULT_OPTIONS, ...options },
      newOrder: orderFactory(),
    };

    beforeEach(async () => {
      fixture = await factory();
    });

    afterEach(async () => {
      const done = fixture;
      fixture = undefined;
      if (!done) return;
      if (done.cleanup) await done.cleanup();
      else await done.store.close?.();
    });

    orderCases(ctx);
    transitionCases(ctx);
    eventCases(ctx);
    leaseCases(ctx);
    dueCases(ctx);
    listCases(ctx);
    valueCases(ctx);
    refundCases(ctx);
    outboxCases(ctx);
    childCases(ctx);
    savedCardCases(ctx);
  });
}
