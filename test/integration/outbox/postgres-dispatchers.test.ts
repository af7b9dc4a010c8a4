/**
 * Two dispatchers on one PostgreSQL database (two pools stand for two processes) racing for the
 * same outbox: every entry is delivered once, and each order's entries in their order. Needs a
 * real server (PGlite has a single connection), so it is skipped without one.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderHooks } from '../../../server/orders/hooks.js';
import { createOutboxDispatcher } from '../../../server/orders/outbox-dispatcher.js';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import type { PostgresOrderStore } from '../../../server/orders/stores/postgres.js';
import { TEST_DATABASE_URL, dropSchema, serverPool, uniqueSchema } from '../stores/pg-target.js';

const ORDERS = 40;

describe.skipIf(!TEST_DATABASE_URL)('outbox dispatchers: two instances on one PostgreSQL database', () => {
  const schema = uniqueSchema('outbox');
  let pools: pg.Pool[] = [];
  let stores: PostgresOrderStore[] = [];

  beforeAll(async () => {
    pools = [serverPool(6), serverPool(6)];
    stores = await Promise.all(pools.map((pool) => createPostgresStore({ pool, schema })));
  });

  afterAll(async () => {
    await dropSchema(pools[0] as pg.Pool, schema);
    await Promise.all(pools.map((p) => p.end()));
  });

  it('never delivers an entry twice nor out of its order, whichever instance claims it', async () => {
    const [a, b] = stores as [PostgresOrderStore, PostgresOrderStore];
    const ids: string[] = [];
    for (let i = 0; i < ORDERS; i++) {
      const id = randomUUID();
      ids.push(id);
      const writer = i % 2 === 0 ? a : b;
      await writer.create({ id, orderNo: `OB-${id.slice(0, 12)}`, amount: 1000, currency: 'EUR' });
      await writer.transition(id, 0, { state: 'paid', capturedAmount: 1000 }, undefined, {
        outbox: [
          { hook: 'onTransition', payload: { source: 'notify', from: 'created', to: 'paid' } },
          { hook: 'onPaid', payload: { source: 'notify', from: 'created', to: 'paid' } },
        ],
      });
      await writer.transition(id, 1, { state: 'refunded', refundedAmount: 1000 }, undefined, {
        outbox: [{ hook: 'onRefunded', payload: { source: 'admin', from: 'paid', to: 'refunded' } }],
      });
    }
    const delivered: { instance: string; orderId: string; hook: string; eventId: string }[] = [];
    const hooksFor = (instance: string): OrderHooks => {
      const record = (hook: string) => async (order: { id: string }, info: { eventId: string }): Promise<void> => {
        delivered.push({ instance, orderId: order.id, hook, eventId: info.eventId });
        await new Promise((resolve) => setTimeout(resolve, 1)); // widen the window for a second claimer
      };
      return { onTransition: record('onTransition'), onPaid: record('onPaid'), onRefunded: record('onRefunded') };
    };
    const dispatchers = [
      createOutboxDispatcher({ store: a, hooks: hooksFor('a'), batchSize: 7 }),
      createOutboxDispatcher({ store: b, hooks: hooksFor('b'), batchSize: 5 }),
    ];
    // Background rounds and targeted deliveries of the same orders, on both instances at once.
    await Promise.all([
      ...dispatchers.map(async (d) => {
        for (let round = 0; round < 6; round++) await d.runOnce();
      }),
      ...dispatchers.map((d, n) => Promise.all((n === 0 ? ids : [...ids].reverse()).map((id) => d.deliver(id)))),
    ]);
    for (const d of dispatchers) await d.runOnce();

    expect(delivered).toHaveLength(ORDERS * 3);
    expect(new Set(delivered.map((d) => d.eventId)).size).toBe(ORDERS * 3);
    for (const id of ids) {
      expect(delivered.filter((d) => d.orderId === id).map((d) => d.hook)).toEqual(['onTransition', 'onPaid', 'onRefunded']);
    }
    // Both instances took part.
    expect(new Set(delivered.map((d) => d.instance)).size).toBe(2);
    expect(await a.countOutbox()).toEqual({ pending: 0, dead: 0 });
  });
});
