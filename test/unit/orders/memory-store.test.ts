import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KitError } from '../../../server/errors.js';
import type { Logger } from '../../../server/logging.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import type { NewOrder } from '../../../server/orders/types.js';

const T0 = Date.parse('2030-01-01T00:00:00Z');

function clock() {
  let t = T0;
  return {
    now: () => new Date(t),
    advance: (ms: number) => {
      t += ms;
    },
  };
}

const newOrder = (extra: Partial<NewOrder> = {}): NewOrder => ({
  id: randomUUID(),
  orderNo: `N-${randomUUID()}`,
  amount: 1250,
  currency: 'EUR',
  ...extra,
});

async function rejection(promise: Promise<unknown>): Promise<KitError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof KitError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('memory store: orders', () => {
  it('creates at version 0 in state created with defaults', async () => {
    const c = clock();
    const store = createMemoryStore({ now: c.now });
    const order = await store.create(newOrder({ data: { items: [{ name: 'Tea' }] } }));
    expect(order).toMatchObject({ version: 0, state: 'created', method: null, transactionId: null, maskedCard: null, capturedAmount: 0, refundedAmount: 0, attention: null });
    expect(order.createdAt).toEqual(new Date(T0));
    expect(order.updatedAt).toEqual(new Date(T0));
    expect(await store.get(order.id)).toEqual(order);
    expect(await store.getByOrderNo(order.orderNo)).toEqual(order);
    expect(await store.get('missing')).toBeNull();
    expect(await store.getByOrderNo('missing')).toBeNull();
    expect(await store.getByTransactionId('missing')).toBeNull();
  });

  it('refuses a taken id or order number with ERR_ORDER_EXISTS', async () => {
    const store = createMemoryStore();
    const first = await store.create(newOrder());
    expect((await rejection(store.create(newOrder({ orderNo: first.orderNo })))).code).toBe('ERR_ORDER_EXISTS');
    expect((await rejection(store.create(newOrder({ id: first.id })))).code).toBe('ERR_ORDER_EXISTS');
  });

  it('returns fresh copies: mutating a result never changes the store', async () => {
    const store = createMemoryStore();
    const input = newOrder({ data: { nested: { a: 1 } } });
    const created = await store.create(input);
    (input.data!.nested as { a: number }).a = 2;
    created.data.nested = 'changed';
    created.amount = 1;
    const read = await store.get(created.id);
    read!.data.extra = true;
    read!.createdAt.setTime(0);
    expect(await store.get(created.id)).toMatchObject({ amount: 1250, data: { nested: { a: 1 } }, createdAt: new Date(created.updatedAt) });
    await store.appendEvent(created.id, { type: 'note', source: 'admin', data: { x: 1 } });
    const events = await store.listEvents(created.id);
    events[0]!.data.x = 99;
    expect((await store.listEvents(created.id))[0]!.data).toEqual({ x: 1 });
  });

  it('lists newest first with filters, limit and offset', async () => {
    const c = clock();
    const store = createMemoryStore({ now: c.now });
    const made = [];
    for (let i = 0; i < 5; i++) {
      made.push(await store.create(newOrder({ createdAt: new Date(T0 + i * 1000), state: i % 2 === 0 ? 'paid' : 'pending' })));
    }
    await store.transition(made[1]!.id, 0, { attention: 'look' });
    const all = await store.list({ limit: 10 });
    expect(all.map((o) => o.id)).toEqual([...made].reverse().map((o) => o.id));
    expect((await store.list({ limit: 10, states: ['pending'] })).map((o) => o.id)).toEqual([made[3]!.id, made[1]!.id]);
    expect((await store.list({ limit: 2, offset: 1 })).map((o) => o.id)).toEqual([made[3]!.id, made[2]!.id]);
    expect((await store.list({ limit: 10, attention: true })).map((o) => o.id)).toEqual([made[1]!.id]);
    expect(await store.list({ limit: 10, attention: false })).toHaveLength(4);
    // createdFrom inclusive, createdTo exclusive
    const window = await store.list({ limit: 10, createdFrom: new Date(T0 + 1000), createdTo: new Date(T0 + 3000) });
    expect(window.map((o) => o.id)).toEqual([made[2]!.id, made[1]!.id]);
  });
});

describe('memory store: compare-and-set transitions and events', () => {
  it('applies a patch and its event atomically and bumps version and updatedAt', async () => {
    const c = clock();
    const store = createMemoryStore({ now: c.now });
    const order = await store.create(newOrder({ data: { keep: 1 } }));
    c.advance(5000);
    const result = await store.transition(order.id, 0, { state: 'paid', transactionId: 'T-1', data: { added: 2 } }, {
      type: 'transition', source: 'notify', fromState: 'created', toState: 'paid', dedupeKey: 'k1', actor: 'gateway', data: { outcome: 'approved' },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.order).toMatchObject({ state: 'paid', version: 1, transactionId: 'T-1', data: { keep: 1, added: 2 } });
    expect(result.order.updatedAt).toEqual(new Date(T0 + 5000));
    expect(result.event).toMatchObject({ seq: 1, type: 'transition', dedupeKey: 'k1', fromState: 'created', toState: 'paid' });
    expect(await store.getByTransactionId('T-1')).toMatchObject({ id: order.id });
    expect(await store.listEvents(order.id)).toEqual([result.event]);
  });

  it('refuses a stale version and reports the current order', async () => {
    const store = createMemoryStore();
    const order = await store.create(newOrder());
    await store.transition(order.id, 0, { state: 'pending' });
    const stale = await store.transition(order.id, 0, { state: 'paid' }, { type: 'transition', source: 'pay' });
    expect(stale).toEqual({ ok: false, current: expect.objectContaining({ state: 'pending', version: 1 }) });
    expect(await store.listEvents(order.id)).toEqual([]);
    expect(await store.transition('missing', 0, { state: 'paid' })).toEqual({ ok: false, current: null });
  });

  it('lets exactly one of many concurrent transitions from one version win', async () => {
    const store = createMemoryStore();
    const order = await store.create(newOrder());
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.transition(order.id, 0, { state: 'paid', data: { winner: i } }, { type: 'transition', source: 'notify' })),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(await store.listEvents(order.id)).toHaveLength(1);
    expect((await store.get(order.id))!.version).toBe(1);
  });

  it('refuses the whole transition when its dedupe key already exists', async () => {
    const store = createMemoryStore();
    const order = await store.create(newOrder());
    await store.appendEvent(order.id, { type: 'notification', source: 'notify', dedupeKey: 'same' });
    const refused = await store.transition(order.id, 0, { state: 'paid' }, { type: 'transition', source: 'notify', dedupeKey: 'same' });
    expect(refused.ok).toBe(false);
    expect((await store.get(order.id))!.state).toBe('created');
    expect(await store.listEvents(order.id)).toHaveLength(1);
  });

  it('appends events with per-order dedupe and sequence numbers', async () => {
    const store = createMemoryStore();
    const a = await store.create(newOrder());
    const b = await store.create(newOrder());
    const first = await store.appendEvent(a.id, { type: 'return_hint', source: 'return', dedupeKey: 'd' });
    const again = await store.appendEvent(a.id, { type: 'return_hint', source: 'return', dedupeKey: 'd', data: { other: true } });
    const otherOrder = await store.appendEvent(b.id, { type: 'return_hint', source: 'return', dedupeKey: 'd' });
    const plain = await store.appendEvent(a.id, { type: 'note', source: 'admin' });
    expect(first.appended).toBe(true);
    expect(again).toEqual({ appended: false, existing: first.appended ? first.event : null });
    expect(otherOrder.appended).toBe(true);
    expect(plain.appended && plain.event.seq).toBe(2);
    expect((await store.get(a.id))!.version).toBe(0);
    expect((await rejection(store.appendEvent('missing', { type: 'note', source: 'admin' }))).code).toBe('ERR_ORDER_NOT_FOUND');
    expect(await store.listEvents('missing')).toEqual([]);
  });
});

describe('memory store: leases and due orders', () => {
  it('grants, renews, refuses and expires leases', async () => {
    const c = clock();
    const store = createMemoryStore({ now: c.now });
    const order = await store.create(newOrder());
    expect(await store.acquireLease(order.id, 'a', 1000)).toBe(true);
    expect(await store.acquireLease(order.id, 'b', 1000)).toBe(false);
    c.advance(800);
    expect(await store.acquireLease(order.id, 'a', 1000)).toBe(true); // renewed to T0+1800
    c.advance(800);
    expect(await store.acquireLease(order.id, 'b', 1000)).toBe(false);
    c.advance(300);
    expect(await store.acquireLease(order.id, 'b', 1000)).toBe(true);
    await store.releaseLease(order.id, 'a'); // not the holder: nothing happens
    expect(await store.acquireLease(order.id, 'a', 1000)).toBe(false);
    await store.releaseLease(order.id, 'b');
    expect(await store.acquireLease(order.id, 'a', 1000)).toBe(true);
    expect(await store.acquireLease('missing', 'a', 1000)).toBe(false);
  });

  it('lists due orders oldest first, strictly before the cutoff, skipping leased ones', async () => {
    const c = clock();
    const store = createMemoryStore({ now: c.now });
    const made = [];
    for (let i = 0; i < 4; i++) made.push(await store.create(newOrder({ state: 'pending', createdAt: new Date(T0 - (4 - i) * 1000) })));
    await store.create(newOrder({ state: 'paid', createdAt: new Date(T0 - 9000) }));
    await store.acquireLease(made[1]!.id, 'someone', 10_000);
    const due = await store.listDue({ states: ['pending'], updatedBefore: new Date(T0 - 1000), limit: 10 });
    expect(due.map((o) => o.id)).toEqual([made[0]!.id, made[2]!.id]); // made[3] is exactly at the cutoff
    expect(await store.listDue({ states: ['pending'], updatedBefore: new Date(T0), limit: 1 })).toHaveLength(1);
    // read-only: listing took no lease
    expect(await store.acquireLease(made[0]!.id, 'x', 1000)).toBe(true);
  });

  it('claims due orders atomically: two owners never get the same order while leased', async () => {
    const c = clock();
    const store = createMemoryStore({ now: c.now });
    for (let i = 0; i < 5; i++) await store.create(newOrder({ state: 'requires_action', createdAt: new Date(T0 - 60_000 + i) }));
    const query = { states: ['requires_action'] as const, updatedBefore: new Date(T0), limit: 3, leaseMs: 10_000 };
    const [a, b] = await Promise.all([store.claimDue({ ...query, owner: 'a' }), store.claimDue({ ...query, owner: 'b' })]);
    const ids = [...a, ...b].map((o) => o.id);
    expect(new Set(ids).size).toBe(5);
    expect(await store.claimDue({ ...query, owner: 'a' })).toEqual([]);
    expect(await store.acquireLease(a[0]!.id, 'b', 1000)).toBe(false);
    c.advance(10_001);
    expect(await store.claimDue({ ...query, owner: 'c' })).toHaveLength(3);
  });
});

describe('memory store: production warning', () => {
  const logger = () => {
    const warnings: string[] = [];
    const log: Logger = { debug() {}, info() {}, warn: (_o, msg) => warnings.push(msg ?? ''), error() {} };
    return { log, warnings };
  };

  it('warns once when NODE_ENV is production', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    const { log, warnings } = logger();
    const store = createMemoryStore({ logger: log });
    const order = await store.create(newOrder());
    await store.transition(order.id, 0, { state: 'pending' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/loses every order on restart/);
  });

  it('stays quiet otherwise', () => {
    vi.stubEnv('NODE_ENV', 'test');
    const { log, warnings } = logger();
    createMemoryStore({ logger: log });
    expect(warnings).toEqual([]);
  });
});

describe('memory store: data that JSON cannot hold', () => {
  it('refuses it with ERR_VALIDATION naming the field, before anything is written', async () => {
    const store = createMemoryStore();
    const order = newOrder();
    await store.create(order);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(store.transition(order.id, 0, { state: 'pending', transactionId: 'tx-1' }, { type: 'x', source: 'api', data: { n: 10n } }))
      .rejects.toMatchObject({ code: 'ERR_VALIDATION', field: 'event.data' });
    await expect(store.transition(order.id, 0, { data: cyclic })).rejects.toMatchObject({ code: 'ERR_VALIDATION', field: 'patch.data' });
    await expect(store.create(newOrder({ data: { n: 1n } }))).rejects.toMatchObject({ code: 'ERR_VALIDATION', field: 'data' });
    expect(await store.get(order.id)).toMatchObject({ version: 0, state: 'created', transactionId: null });
    expect(await store.getByTransactionId('tx-1')).toBeNull();
    expect(await store.listEvents(order.id)).toEqual([]);
  });
});
