/**
 * The first step of every journey: the shop creates the payment with kit.createPayment, and
 * the kit's own life cycle (validation at creation, the sweeper started and stopped).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createGatewayPort } from '../../../server/checkout/gateway-port.js';
import { chunkIdentifiers } from '../../../server/gateway/operations/queries.js';
import { ConfigError, KitError, ValidationError } from '../../../server/errors.js';
import type { GatewayClient } from '../../../server/gateway/client.js';
import { createCheckoutKit, type CheckoutKit } from '../../../server/kit.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import type { OrderStore } from '../../../server/orders/store.js';
import { paymentInput, uniqueOrderNo } from './journeys-harness.js';

const base = {
  // Nothing here talks to the gateway; the address is never called.
  gateway: { baseUrl: 'http://127.0.0.1:9/', merchantId: '701001', accountId: '701001010', signKey: 'unused-sign-key' },
  publicUrl: 'http://127.0.0.1:3000/checkout',
  tokenSecret: `payments-test-secret-${randomUUID()}`,
  sweeper: { enabled: false },
  store: createMemoryStore(),
};

const kits: CheckoutKit[] = [];
function kit(extra: Record<string, unknown> = {}): CheckoutKit {
  const k = createCheckoutKit({ ...base, ...extra });
  kits.push(k);
  return k;
}
afterAll(async () => {
  await Promise.all(kits.map((k) => k.close()));
});

async function rejection(promise: Promise<unknown>): Promise<KitError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof KitError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

async function validationError(promise: Promise<unknown>): Promise<ValidationError> {
  const err = await rejection(promise);
  if (err instanceof ValidationError) return err;
  throw new Error(`expected a ValidationError, got ${err.code}`);
}

describe('createPayment', () => {
  const k = kit({ methods: ['card', 'hosted'] });

  it('stores the order as created with the shop data under order.data, and returns a pay URL', async () => {
    const orderNo = uniqueOrderNo('P-OK');
    const input = { ...paymentInput(orderNo), note: 'gift', custom: 'a;b', delivery: { country: 'DE', city: 'Berlin' }, methods: ['card' as const] };
    const { order, payUrl } = await k.createPayment(input);
    expect(order).toMatchObject({ orderNo, amount: 2500, currency: 'USD', state: 'created', version: 0 });
    expect(order.data).toEqual({
      items: input.items, shopper: input.shopper, billing: input.billing, delivery: input.delivery,
      note: 'gift', custom: 'a;b', methods: ['card'], website: '127.0.0.1:3000',
    });
    expect(payUrl).toMatch(/^http:\/\/127\.0\.0\.1:3000\/checkout\/pay\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(k.context.tokens.verify(payUrl.split('/').at(-1)!, 'pay')).toEqual({ orderId: order.id });
    expect(await k.store.getByOrderNo(orderNo)).toMatchObject({ id: order.id });
  });

  it('names orders with time-ordered ids (UUID v7): a later order sorts after an earlier one', async () => {
    const first = await k.createPayment(paymentInput(uniqueOrderNo('P-V7')));
    await new Promise((resolve) => setTimeout(resolve, 2));
    const second = await k.createPayment(paymentInput(uniqueOrderNo('P-V7')));
    for (const { order } of [first, second]) expect(order.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first.order.id < second.order.id).toBe(true);
    const idTime = Number.parseInt(first.order.id.replace('-', '').slice(0, 12), 16);
    expect(Math.abs(idTime - first.order.createdAt.getTime())).toBeLessThan(1000);
  });

  it('is idempotent by orderNo; another amount or currency is ERR_ORDER_EXISTS', async () => {
    const orderNo = uniqueOrderNo('P-IDEM');
    const first = await k.createPayment(paymentInput(orderNo));
    const again = await k.createPayment(paymentInput(orderNo));
    expect(again.order.id).toBe(first.order.id);
    const concurrent = await Promise.all([1, 2, 3].map(() => k.createPayment(paymentInput(uniqueOrderNo('X')))));
    expect(new Set(concurrent.map((c) => c.order.id)).size).toBe(3);
    const same = await Promise.all([1, 2, 3].map(() => k.createPayment(paymentInput(`${orderNo}-R`))));
    expect(new Set(same.map((c) => c.order.id)).size).toBe(1);

    const otherAmount = { ...paymentInput(orderNo), amount: 1250, items: [{ name: 'Tea pot', sku: 'TP-1', unitPrice: 1250, quantity: 1 }] };
    expect((await rejection(k.createPayment(otherAmount))).code).toBe('ERR_ORDER_EXISTS');
    const otherCurrency = { ...paymentInput(orderNo), currency: 'EUR' };
    expect((await rejection(k.createPayment(otherCurrency))).code).toBe('ERR_ORDER_EXISTS');
    expect((await k.store.getByOrderNo(orderNo))?.amount).toBe(2500);
  });

  it('amount must equal the items total unless amounts are given; then the components rule applies', async () => {
    const wrong = await validationError(k.createPayment({ ...paymentInput(uniqueOrderNo('P-TOT')), amount: 2600 }));
    expect(wrong.field).toBe('amount');

    const withShipping = { ...paymentInput(uniqueOrderNo('P-AMTS')), amount: 2900, amounts: { item_total: 2500, shipping: 500, discount: 100 } };
    expect((await k.createPayment(withShipping)).order.amount).toBe(2900);
    const broken = { ...paymentInput(uniqueOrderNo('P-AMTS')), amount: 2900, amounts: { item_total: 2500 } };
    expect((await validationError(k.createPayment(broken))).field).toBe('amount');
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ['orderNo with a space', { orderNo: 'A B' }, 'orderNo'],
    ['orderNo too long', { orderNo: 'A'.repeat(51) }, 'orderNo'],
    ['amount 0', { amount: 0 }, 'amount'],
    ['fractional amount', { amount: 25.5 }, 'amount'],
    ['currency lower case', { currency: 'usd' }, 'currency'],
    ['no items', { items: [] }, 'items'],
    ['item quantity 0', { items: [{ name: 'x', sku: 'y', unitPrice: 2500, quantity: 0 }] }, 'items[0].quantity'],
    ['item name with the items separator', { items: [{ name: 'a#;#b', sku: 'y', unitPrice: 2500, quantity: 1 }] }, 'items[0].name'],
    ['shopper email', { shopper: { id: 's', email: 'not-an-email' } }, 'shopper.email'],
    ['unknown shopper field', { shopper: { id: 's', email: 'a@b.test', card: '4242424242424242' } }, 'shopper.card'],
    ['billing country', { billing: { country: 'Netherlands' } }, 'billing.country'],
    ['note too long', { note: 'n'.repeat(1001) }, 'note'],
    ['a method that is not enabled', { methods: ['apm'] }, 'methods'],
    ['an unknown method', { methods: ['cash'] }, 'methods[0]'],
    ['an unknown field', { colour: 'red' }, 'colour'],
  ];
  it.each(bad)('%s → ValidationError naming %s, nothing stored', async (_name, change, field) => {
    const orderNo = typeof change.orderNo === 'string' ? change.orderNo : uniqueOrderNo('P-BAD');
    const err = await validationError(k.createPayment({ ...paymentInput(orderNo), ...change }));
    expect(err.field).toBe(field);
    expect(err.message).not.toContain('4242424242424242');
    expect(await k.store.getByOrderNo(orderNo)).toBeNull();
  });
});

describe('createCheckoutKit', () => {
  it('validates options before anything starts', () => {
    expect(() => createCheckoutKit({ ...base, tokenSecret: 'short' })).toThrow(ConfigError);
    expect(() => createCheckoutKit({ ...base, publicURL: 'x' } as never)).toThrow(/"publicURL": is not a known option. Fix: did you mean "publicUrl"\?/);
  });

  it('uses the store it is given and never closes it; starts the sweeper and stops it on close()', async () => {
    const inner = createMemoryStore();
    let claims = 0;
    let closed = 0;
    const store: OrderStore = {
      ...inner,
      claimDue: (q) => {
        claims++;
        return inner.claimDue(q);
      },
      close: () => {
        closed++;
        return Promise.resolve();
      },
    };
    const k = createCheckoutKit({ ...base, store, sweeper: { enabled: true, intervalMs: 100 } });
    expect(k.store).toBe(store);
    await k.sweeper.runOnce();
    await new Promise<void>((resolve) => {
      const wait = setInterval(() => {
        if (claims >= 2) {
          clearInterval(wait);
          resolve();
        }
      }, 20);
    });
    await k.close();
    await k.close();
    const after = claims;
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(claims).toBe(after);
    expect(closed).toBe(0);
  });

  it('passes the sweeper\'s lease and batch size through: 5 due orders with batchSize 2 → 3 claims of at most 2, leased for leaseMs', async () => {
    const inner = createMemoryStore();
    const claimed: { limit: number; leaseMs: number }[] = [];
    const store: OrderStore = {
      ...inner,
      claimDue: (q) => {
        claimed.push({ limit: q.limit, leaseMs: q.leaseMs });
        return inner.claimDue(q);
      },
    };
    const old = new Date(Date.now() - 60 * 60 * 1000);
    for (let i = 0; i < 5; i++) {
      const order = await inner.create({ id: randomUUID(), orderNo: `SWEEP-${String(i)}-${randomUUID().slice(0, 8)}`, amount: 100, currency: 'EUR', state: 'pending', createdAt: old });
      expect(order.state).toBe('pending');
    }
    const queried: string[][] = [];
    const client = {
      queries: {
        transactions: (q: { orders?: string[] }) => {
          queried.push(q.orders ?? []);
          return Promise.resolve({ returnStatus: '1', returnMessage: 'OK', orders: [] });
        },
        refunds: () => Promise.resolve({ returnStatus: '1', returnMessage: 'OK', refunds: [] }),
      },
    } as unknown as GatewayClient;
    const k = kit({ store, client, sweeper: { enabled: false, stuckAfterMs: 1, leaseMs: 5000, batchSize: 2 } });
    await k.sweeper.runOnce();
    expect(queried.map((q) => q.length)).toEqual([2, 2, 1]);
    expect(claimed.every((c) => c.limit === 2 && c.leaseMs === 5000)).toBe(true);
  });

  it('returns the parts a shop uses', () => {
    const k = kit();
    expect(typeof k.router).toBe('function');
    expect(typeof k.client.queries.transactions).toBe('function');
    expect(typeof k.engine.apply).toBe('function');
    expect(typeof k.sweeper.runOnce).toBe('function');
    expect(k.context.urls.notify()).toBe('http://127.0.0.1:3000/checkout/notify');
    expect(k.context.urls.result('abc')).toMatch(/^http:\/\/127\.0\.0\.1:3000\/checkout\/result\/[A-Za-z0-9_.-]+$/);
  });
});

/** The client's chunking of query lists, as lists of order numbers. */
const chunkOrderNos = (orderNos: string[]): string[][] => chunkIdentifiers(orderNos, 'orders').map((list) => list.split(','));

describe('gateway port (what the engine and the sweeper ask the query operation)', () => {
  it('the client chunks by 100 order numbers and by 1000 characters, without repeats', () => {
    const short = Array.from({ length: 250 }, (_, i) => `S${String(i)}`);
    expect(chunkOrderNos([...short, 'S1', 'S2']).map((c) => c.length)).toEqual([100, 100, 50]);
    const long = Array.from({ length: 60 }, (_, i) => `L${String(i).padStart(3, '0')}${'x'.repeat(46)}`);
    const chunks = chunkOrderNos(long);
    expect(chunks.flat()).toEqual(long);
    for (const chunk of chunks) expect(chunk.join(',').length).toBeLessThanOrEqual(1000);
    expect(chunks[0]).toHaveLength(19);
  });

  it('asks the client once (it chunks) and keeps, per order number, the most advanced answer', async () => {
    const calls: string[][] = [];
    const answer = (orderNo: string, outcome: string, transactionId: string) => ({ orderNo, outcome, transactionId, amount: 100, currency: 'EUR' });
    const client = {
      queries: {
        transactions: (q: { orders?: string[] }) => {
          calls.push(q.orders ?? []);
          const orders = (q.orders ?? []).flatMap((no) =>
            no === 'TWICE' ? [answer(no, 'approved', 'T-2'), answer(no, 'declined', 'T-1')] : no.startsWith('GONE') ? [] : [answer(no, 'pending', `T-${no}`)],
          );
          // An answer for an order nobody asked about is ignored.
          return Promise.resolve({ returnStatus: '1', returnMessage: 'OK', orders: [...orders, answer('STRAY', 'approved', 'T-X')] });
        },
      },
    } as unknown as GatewayClient;
    const nos = [...Array.from({ length: 150 }, (_, i) => `O${String(i)}`), 'TWICE', 'GONE-1'];
    const facts = await createGatewayPort(client).queryOrders(nos);
    // One call with every order number once; the client splits it within the query limits (above).
    expect(calls.map((c) => c.length)).toEqual([152]);
    expect(chunkOrderNos(calls[0] ?? []).map((c) => c.length)).toEqual([100, 52]);
    expect(facts.size).toBe(151);
    expect(facts.get('TWICE')).toMatchObject({ outcome: 'approved', transactionId: 'T-2' });
    expect(facts.has('GONE-1')).toBe(false);
    expect(facts.has('STRAY')).toBe(false);
    expect(facts.get('O7')).toEqual({ orderNo: 'O7', transactionId: 'T-O7', outcome: 'pending', amount: 100, currency: 'EUR' });
  });
});
