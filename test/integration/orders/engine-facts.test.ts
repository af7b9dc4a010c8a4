/**
 * What a fact may carry besides its outcome: details for `order.data`, a reason for staff
 * (`attention`) and the refunds it reports (`refunds`, recorded in the ledger). Each is applied under the order's
 * lease, in the compare-and-set that stores the state, and the hooks fire once.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../server/errors.js';
import { createReconcileEngine } from '../../../server/orders/engine.js';
import type { PaymentFact } from '../../../server/orders/engine-types.js';
import { createMemoryStore } from '../../../server/orders/stores/memory.js';
import { fakeGateway, makeOrder, memoryLogger, recordingHooks } from './fixtures.js';

const PAN = '4242424242424242';

function setup() {
  const store = createMemoryStore();
  const gateway = fakeGateway();
  const rec = recordingHooks();
  const log = memoryLogger();
  const engine = createReconcileEngine({ store, gateway: gateway.port, hooks: rec.hooks, logger: log.logger, leaseWaitMs: 5_000 });
  return { store, gateway, rec, engine, log };
}

async function failure(promise: Promise<unknown>): Promise<ValidationError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

describe('orderData: details merged into order.data', () => {
  it('in the same compare-and-set as the transition, card-free', async () => {
    const { store, engine } = setup();
    const order = await makeOrder(store, { data: { items: ['tea'] } });
    const result = await engine.apply({
      orderId: order.id, source: 'pay', outcome: 'declined',
      orderData: { resultCode: '2001', resultText: 'Insufficient funds', card: PAN },
    });
    expect(result).toMatchObject({ status: 'applied', order: { state: 'declined', version: 1 } });
    const stored = (await store.get(order.id))!;
    expect(stored.version).toBe(1);
    expect(stored.data).toMatchObject({ items: ['tea'], resultCode: '2001', resultText: 'Insufficient funds' });
    expect(JSON.stringify(stored)).not.toContain(PAN);
    expect((await store.listEvents(order.id)).map((e) => e.type)).toEqual(['transition']);
  });

  it('when the order is already in the reported state: changed keys only, a details event, no hooks', async () => {
    const { store, engine, rec } = setup();
    const order = await makeOrder(store);
    await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved', dedupeKey: 'n-1' });
    const calls = rec.calls.length;
    const fact: PaymentFact = { orderId: order.id, source: 'pay', outcome: 'approved', orderData: { resultCode: '0000', resultText: 'Success' } };
    const result = await engine.apply(fact);
    expect(result).toMatchObject({ status: 'noop', reason: 'already paid', event: { type: 'details' } });
    expect((await store.get(order.id))!).toMatchObject({ version: 2, state: 'paid', data: { resultCode: '0000', resultText: 'Success' } });
    // Repeating the same details writes nothing more.
    expect(await engine.apply(fact)).toMatchObject({ status: 'noop' });
    expect((await store.get(order.id))!.version).toBe(2);
    expect((await store.listEvents(order.id)).map((e) => e.type)).toEqual(['transition', 'details']);
    expect(rec.calls.length).toBe(calls);
  });

  it("drops a late fact's details: they describe a state the order has left", async () => {
    const { store, engine } = setup();
    const order = await makeOrder(store);
    await engine.apply({ orderId: order.id, source: 'pay', outcome: 'approved', orderData: { resultText: 'Success' } });
    const late = await engine.apply({ orderId: order.id, source: 'pay', outcome: 'pending', orderData: { resultText: 'Processing' } });
    expect(late).toMatchObject({ status: 'noop', reason: expect.stringMatching(/late/) });
    expect((await store.get(order.id))!).toMatchObject({ version: 1, data: { resultText: 'Success' } });
  });

  it('refuses keys the engine keeps, naming the field, and changes nothing', async () => {
    const { store, engine } = setup();
    const order = await makeOrder(store);
    const error = await failure(engine.apply({ orderId: order.id, source: 'pay', outcome: 'cancelled', orderData: { authorizationReleased: true } }));
    expect(error.field).toBe('orderData.authorizationReleased');
    expect((await store.get(order.id))!.version).toBe(0);
  });

  it('refuses data and orderData that are not plain objects, naming the field', async () => {
    const { store, engine } = setup();
    const order = await makeOrder(store);
    for (const [field, value] of [['data', ['x']], ['orderData', 'text'], ['data', null]] as const) {
      const error = await failure(engine.apply({ orderId: order.id, source: 'pay', outcome: 'approved', [field]: value } as never));
      expect(error.field).toBe(field);
    }
    expect((await store.get(order.id))!.version).toBe(0);
  });
});

describe('attention carried by a fact', () => {
  it('is merged with the transition, raises onAttention once and sets attentionAt', async () => {
    const { store, engine, rec, log } = setup();
    const order = await makeOrder(store);
    const reason = 'The gateway answer could not be trusted: check the payment.';
    const result = await engine.apply({ orderId: order.id, source: 'pay', outcome: 'pending', attention: reason });
    expect(result).toMatchObject({ status: 'applied', order: { state: 'pending', attention: reason, version: 1 } });
    expect(result.order!.data.attentionAt).toEqual(expect.any(String));
    expect((await store.listEvents(order.id)).map((e) => e.type)).toEqual(['transition']);
    expect(rec.calls.map((c) => c.hook)).toEqual(['onTransition', 'onAttention']);
    expect(rec.calls[1]!.info).toBe(reason);
    expect(log.lines.some((l) => l.includes('Order flagged for attention'))).toBe(true);
  });

  it('without a state change: its own write with an attention event; repeated, it adds nothing', async () => {
    const { store, engine, rec } = setup();
    const order = await makeOrder(store);
    await engine.apply({ orderId: order.id, source: 'notify', outcome: 'approved' });
    const fact: PaymentFact = { orderId: order.id, source: 'pay', outcome: 'pending', attention: 'Look at this payment.' };
    const result = await engine.apply(fact);
    expect(result).toMatchObject({ status: 'noop', order: { state: 'paid', attention: 'Look at this payment.', version: 2 }, event: { type: 'attention' } });
    expect(result.event!.data).toMatchObject({ reason: 'Look at this payment.' });
    expect(await engine.apply(fact)).toMatchObject({ status: 'noop' });
    expect((await store.get(order.id))!.version).toBe(2);
    expect(rec.count('onAttention')).toBe(1);
    expect(rec.count('onTransition')).toBe(1);
  });

  it('fires onAttention exactly once under 20 concurrent applies across two engines', async () => {
    const store = createMemoryStore();
    const rec = recordingHooks();
    const a = createReconcileEngine({ store, hooks: rec.hooks, owner: 'a', leaseWaitMs: 10_000 });
    const b = createReconcileEngine({ store, hooks: rec.hooks, owner: 'b', leaseWaitMs: 10_000 });
    const order = await makeOrder(store, { state: 'paid' });
    const fact: PaymentFact = { orderId: order.id, source: 'pay', outcome: 'pending', attention: 'Once only.' };
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).apply(fact)));
    expect(rec.count('onAttention')).toBe(1);
    expect((await store.get(order.id))!.attention).toBe('Once only.');
    expect((await store.listEvents(order.id)).filter((e) => e.type === 'attention')).toHaveLength(1);
  });

  it('joins the state machine reason (late money) and the fact reason in one onAttention call', async () => {
    const { store, engine, rec } = setup();
    const order = await makeOrder(store, { state: 'cancelled' });
    const result = await engine.apply({ orderId: order.id, source: 'pay', outcome: 'approved', attention: 'Shopper phoned about it.' });
    expect(result.order!.attention!.split('\n')).toEqual([expect.stringMatching(/after the order was cancelled/), 'Shopper phoned about it.']);
    expect(rec.count('onAttention')).toBe(1);
    expect(rec.calls.find((c) => c.hook === 'onAttention')!.info).toBe(result.order!.attention);
  });

  it('never stores a card number in the attention text', async () => {
    const { store, engine } = setup();
    const order = await makeOrder(store);
    await engine.apply({ orderId: order.id, source: 'pay', outcome: 'pending', attention: `Card ${PAN} was refused` });
    expect(JSON.stringify([await store.get(order.id), await store.listEvents(order.id)])).not.toContain(PAN);
  });
});

describe('refunds: one ledger row per reference, the total derived from the rows', () => {
  const refund = (orderId: string, amount: number, ref: string): PaymentFact =>
    ({ orderId, source: 'notify', outcome: 'partially_refunded', refunds: [{ referenceId: ref, amount, status: 'succeeded' }], dedupeKey: `refund:${ref}` });

  it('two different partial refunds applied concurrently add up; a replay is a duplicate', async () => {
    const store = createMemoryStore();
    const rec = recordingHooks();
    const a = createReconcileEngine({ store, hooks: rec.hooks, owner: 'a', leaseWaitMs: 10_000 });
    const b = createReconcileEngine({ store, hooks: rec.hooks, owner: 'b', leaseWaitMs: 10_000 });
    const order = await makeOrder(store, { state: 'paid' });
    const results = await Promise.all([a.apply(refund(order.id, 300, 'T-01')), b.apply(refund(order.id, 450, 'T-02'))]);
    expect(results.map((r) => r.status)).toEqual(['applied', 'applied']);
    expect((await store.get(order.id))!).toMatchObject({ state: 'partially_refunded', refundedAmount: 750 });
    expect(await a.apply(refund(order.id, 300, 'T-01'))).toMatchObject({ status: 'duplicate' });
    // The same refund under another key (another road) changes nothing either.
    expect(await a.apply({ ...refund(order.id, 300, 'T-01'), dedupeKey: 'other-road' })).toMatchObject({ status: 'noop' });
    expect((await store.get(order.id))!.refundedAmount).toBe(750);
    const totals = rec.calls.filter((c) => c.hook === 'onRefunded').map((c) => (c.info as { refundedAmount: number }).refundedAmount);
    // Whichever came first, the second saw the first one's row.
    expect(totals).toHaveLength(2);
    expect(totals[1]).toBe(750);
    const rows = await store.listRefunds(order.id);
    expect(rows.map((r) => [r.referenceId, r.amount, r.status, r.source]).sort()).toEqual([['T-01', 300, 'succeeded', 'notify'], ['T-02', 450, 'succeeded', 'notify']]);
  });

  it('a total that reaches the captured amount is a full refund', async () => {
    const { store, engine, rec } = setup();
    const order = await makeOrder(store, { state: 'paid' });
    await engine.apply(refund(order.id, 400, 'T-01'));
    expect(await engine.apply(refund(order.id, 600, 'T-02'))).toMatchObject({ status: 'applied', order: { state: 'refunded', refundedAmount: 1000, attention: null } });
    expect(rec.count('onAttention')).toBe(0);
  });

  it('a total above the captured amount is the rows\' sum, refunded and flagged once', async () => {
    const { store, engine, rec } = setup();
    const order = await makeOrder(store, { state: 'paid' });
    await engine.apply(refund(order.id, 700, 'T-01'));
    const over = await engine.apply(refund(order.id, 700, 'T-02'));
    expect(over).toMatchObject({ status: 'applied', order: { state: 'refunded', refundedAmount: 1400, attention: expect.stringMatching(/add up to more than the 1000 EUR captured/) } });
    expect(rec.count('onAttention')).toBe(1);
    expect(over.event!.data).toMatchObject({ refunds: [{ referenceId: 'T-02', amount: 700, status: 'succeeded' }] });
    // Another one on the refunded order: recorded, no state change, nothing more fired.
    expect(await engine.apply(refund(order.id, 700, 'T-03'))).toMatchObject({ status: 'noop', order: { state: 'refunded', refundedAmount: 2100 } });
    expect(rec.count('onAttention')).toBe(1);
  });

  it("records the gateway's references when confirming, the claim's own refund once", async () => {
    const { store, engine, gateway } = setup();
    const order = await makeOrder(store, { state: 'paid' });
    gateway.knows(order, { outcome: 'partially_refunded', refunds: [{ referenceId: 'T-01', amount: 300, status: 'succeeded' }, { referenceId: 'T-02', amount: 600, status: 'succeeded' }] });
    const result = await engine.apply({ ...refund(order.id, 300, 'T-01'), confirm: true });
    expect(result).toMatchObject({ status: 'applied', order: { state: 'partially_refunded', refundedAmount: 900 } });
    expect(await store.listRefunds(order.id)).toHaveLength(2);
  });

  it('a total without references is never written: it flags the order when the ledger differs', async () => {
    const { store, engine } = setup();
    const order = await makeOrder(store, { state: 'paid' });
    await engine.apply(refund(order.id, 300, 'T-01'));
    const result = await engine.apply({ orderId: order.id, source: 'sweeper', outcome: 'partially_refunded', refundedAmount: 900 });
    expect(result.order).toMatchObject({ state: 'partially_refunded', refundedAmount: 300, attention: expect.stringMatching(/reports 900 EUR refunded, the refund ledger holds 300/) });
    // The same total as the ledger: nothing to say.
    const same = await engine.apply({ orderId: order.id, source: 'sweeper', outcome: 'partially_refunded', refundedAmount: 300 });
    expect(same.status).toBe('noop');
  });

  it('is refused with a bad refund, naming the field', async () => {
    const { store, engine } = setup();
    const order = await makeOrder(store, { state: 'paid' });
    const zero = await failure(engine.apply(refund(order.id, 0, 'x')));
    expect(zero.field).toBe('refunds[0].amount');
    const status = await failure(engine.apply({ ...refund(order.id, 10, 'x'), refunds: [{ referenceId: 'x', amount: 10, status: 'done' as 'failed' }] }));
    expect(status.field).toBe('refunds[0].status');
    expect((await store.get(order.id))!.version).toBe(0);
  });
});
