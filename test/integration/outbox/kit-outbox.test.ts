/**
 * The kit runs the hook outbox's dispatcher: a hook that fails is retried in the background with
 * the same eventId; close() stops the loop; `outbox.enabled: false` leaves it to another process.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCheckoutKit } from '../../../server/kit.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { KitError } from '../../../server/errors.js';
import { makeOrder } from '../orders/fixtures.js';

const base = {
  gateway: { baseUrl: 'http://127.0.0.1:9/', merchantId: '701001', accountId: '701001010', signKey: 'unused-sign-key' },
  publicUrl: 'http://127.0.0.1:3000/checkout',
  tokenSecret: `outbox-test-secret-${randomUUID()}`,
  sweeper: { enabled: false },
};

describe('kit: hook outbox', () => {
  it('retries a failed hook in the background with the same eventId, and stops on close()', async () => {
    const store = createMemoryStore();
    const ids: string[] = [];
    const kit = createCheckoutKit({
      ...base,
      store,
      // A backoff well above one delivery's bookkeeping, so the retry is the loop's and not the first run's.
      outbox: { intervalMs: 20, backoffMs: 200 },
      hooks: {
        onPaid: (_order, info) => {
          ids.push(info.eventId);
          if (ids.length === 1) throw new Error('warehouse API timed out');
        },
      },
    });
    expect(kit.engine.outbox.running).toBe(true);
    const order = await makeOrder(store);
    await kit.engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' });
    expect(ids).toHaveLength(1);
    await expect.poll(() => ids.length, { timeout: 5_000 }).toBe(2);
    expect(ids[1]).toBe(ids[0]);
    await kit.close();
    expect(kit.engine.outbox.running).toBe(false);
    expect(await store.countOutbox()).toEqual({ pending: 0, dead: 0 });
  });

  it('runs no loop with outbox.enabled false, still delivering right after each change', async () => {
    const store = createMemoryStore();
    let paid = 0;
    const kit = createCheckoutKit({ ...base, store, outbox: { enabled: false }, hooks: { onPaid: () => { paid++; } } });
    expect(kit.engine.outbox.running).toBe(false);
    const order = await makeOrder(store);
    await kit.engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' });
    expect(paid).toBe(1);
    await kit.close();
  });

  it('refuses bad outbox options with a coded error naming the option', () => {
    const attempt = (outbox: unknown): unknown => {
      try {
        createCheckoutKit({ ...base, store: createMemoryStore(), outbox } as Parameters<typeof createCheckoutKit>[0]);
      } catch (error) {
        return error;
      }
      return null;
    };
    expect(attempt({ intervalMs: 0 })).toMatchObject({ code: 'ERR_CONFIG', message: expect.stringContaining('outbox.intervalMs') });
    expect(attempt({ backoffMs: 5000, maxBackoffMs: 1000 })).toMatchObject({ code: 'ERR_CONFIG', message: expect.stringContaining('outbox.maxBackoffMs') });
    expect(attempt({ stopGraceMs: -1 })).toMatchObject({ code: 'ERR_CONFIG', message: expect.stringContaining('outbox.stopGraceMs') });
    const typo = attempt({ maxAttempt: 3 });
    expect(typo).toBeInstanceOf(KitError);
    expect((typo as KitError).message).toMatch(/maxAttempts/);
  });

  it('close() resolves after outbox.stopGraceMs while a hook never settles, leaving its entry to be delivered again', async () => {
    const store = createMemoryStore();
    let calls = 0;
    const kit = createCheckoutKit({
      ...base,
      store,
      outbox: { waitMs: 10, stopGraceMs: 50 },
      hooks: { onPaid: () => { calls++; return new Promise<void>(() => undefined); } },
    });
    const order = await makeOrder(store);
    expect((await kit.engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' })).status).toBe('applied');
    await kit.close();
    expect(kit.engine.outbox.running).toBe(false);
    expect(calls).toBe(1);
    expect(await store.countOutbox()).toEqual({ pending: 1, dead: 0 });
  });
});
