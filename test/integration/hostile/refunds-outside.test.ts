/**
 * Hostile: refunds the kit did not start, refunds in zero- and three-decimal currencies, a
 * chargeback after a partial refund, notifications replayed after the order moved on. The
 * invariant every test ends on: the shop's record of money equals the sandbox's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayPort } from '../../../server/checkout/gateway-port.js';
import { createSweeper } from '../../../server/orders/sweeper.js';
import { LedgerStore } from '../../../server/sandbox/ledger.js';
import { control } from '../../reliability/support/orders.js';
import { refundProblems, Staff } from '../../reliability/support/refund-race.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { held, paidIn, postNotify, refundBehindTheKit, resigned } from './support.js';

let shop: Shop;
beforeAll(async () => {
  shop = await startShop({ admin: true, notifyTimeScale: 0.00001 });
  shop.sandbox.faults.add({ kind: 'dropNotification' });
});
afterAll(async () => {
  await shop.close();
});

let n = 0;
const orderNo = (p: string): string => `${p}-${Date.now().toString(36)}-${String(++n)}`;

describe('refunds made behind the kit', () => {
  it('a refund made at the gateway, then query sync: the shop records it by reference', async () => {
    const order = await paidIn(shop, orderNo('OUT'), 10_000);
    const made = await refundBehindTheKit(shop, order, 2_500);
    expect(made.ok).toBe(true);
    const staff = new Staff(shop, 'sync');
    await staff.get(`/orders/${order.id}`);
    expect((await staff.post(`/orders/${order.id}/sync`, {})).status).toBe(303);
    expect(await refundProblems(shop, order.orderNo)).toEqual([]);
  });

  it('two refunds of the same amount at the gateway, one notified twice, then the sweeper and sync', async () => {
    const order = await paidIn(shop, orderNo('OUT2'), 10_000);
    await refundBehindTheKit(shop, order, 1_000);
    await refundBehindTheKit(shop, order, 1_000);
    await shop.sandbox.notifier.flush();
    const refundNotes = held(shop, order.orderNo).filter((f) => f.refund_reference_id !== undefined);
    expect(refundNotes).toHaveLength(2);
    for (const f of [refundNotes[0]!, refundNotes[0]!]) expect(await postNotify(shop, f)).toBe(200);
    await shop.kit.engine.confirm(order.id, 'admin', 'staff');
    for (const f of refundNotes.reverse()) expect(await postNotify(shop, f)).toBe(200);
    expect(await refundProblems(shop, order.orderNo)).toEqual([]);
  });

  it('a staff refund whose answer is lost while the same amount is refunded at the gateway: totals stay the gateway\'s', async () => {
    const order = await paidIn(shop, orderNo('LOST'), 10_000);
    const staff = new Staff(shop, 'lost');
    await staff.get(`/orders/${order.id}`);
    shop.sandbox.faults.add({ kind: 'timeout', operation: 'refund', times: 1, orderNo: order.orderNo });
    await staff.post(`/orders/${order.id}/refund`, { refund_amount: '30.00' });
    // The gateway made the staff refund (timeout after acting?) or not: either way the shop must follow.
    await refundBehindTheKit(shop, order, 3_000);
    await shop.sandbox.notifier.flush();
    for (const f of held(shop, order.orderNo).filter((x) => x.refund_reference_id !== undefined)) expect(await postNotify(shop, f)).toBe(200);
    const sweeper = createSweeper({
      engine: shop.kit.engine, store: shop.kit.store, gateway: createGatewayPort(shop.kit.client),
      stuckAfterMs: 60_000, expireAfterMs: 120_000, refundSettleAfterMs: 1, refundFailAfterMs: 1,
    });
    await new Promise((r) => setTimeout(r, 5));
    await sweeper.runOnce();
    await shop.kit.engine.confirm(order.id, 'admin', 'staff');
    expect(await refundProblems(shop, order.orderNo)).toEqual([]);
  });
});

describe('currencies with no and with three decimals', () => {
  for (const [currency, amount, text, minor] of [['JPY', 5_000, '1234', 1_234], ['KWD', 10_000, '1.234', 1_234]] as const) {
    it(`${currency}: a staff refund of ${text} is ${String(minor)} minor units at the shop and at the gateway`, async () => {
      const order = await paidIn(shop, orderNo(currency), amount, currency);
      expect(order.state).toBe('paid');
      const staff = new Staff(shop, `s-${currency}`);
      await staff.get(`/orders/${order.id}`);
      expect((await staff.post(`/orders/${order.id}/refund`, { refund_amount: text })).status).toBe(303);
      await shop.sandbox.notifier.flush();
      for (const f of held(shop, order.orderNo).filter((x) => x.refund_reference_id !== undefined)) expect(await postNotify(shop, f)).toBe(200);
      expect(shop.sandbox.ledger.transaction(order.orderNo)!.refundedAmount).toBe(minor);
      expect(await refundProblems(shop, order.orderNo)).toEqual([]);
    });
  }
});

describe('late and changed notifications', () => {
  it('a chargeback after a partial refund keeps the refunded amount and is a chargeback', async () => {
    const order = await paidIn(shop, orderNo('CB'), 10_000);
    const staff = new Staff(shop, 'cb');
    await staff.get(`/orders/${order.id}`);
    expect((await staff.post(`/orders/${order.id}/refund`, { refund_amount: '10.00' })).status).toBe(303);
    await control(shop.gateway.baseUrl, `transactions/${order.transactionId!}/chargeback`, {});
    await shop.sandbox.notifier.flush();
    const notes = held(shop, order.orderNo);
    for (const f of [...notes, ...notes.reverse()]) expect(await postNotify(shop, f)).toBe(200);
    const stored = (await shop.kit.store.get(order.id))!;
    expect(stored.state).toBe('chargeback');
    expect(stored.refundedAmount).toBe(1_000);
  });

  it('the payment notification replayed after the order was refunded changes nothing', async () => {
    const order = await paidIn(shop, orderNo('REPLAY'), 4_000);
    const staff = new Staff(shop, 'rp');
    await staff.get(`/orders/${order.id}`);
    expect((await staff.post(`/orders/${order.id}/refund`, { refund_amount: '40.00' })).status).toBe(303);
    await shop.sandbox.notifier.flush();
    const notes = held(shop, order.orderNo);
    for (const f of [...notes].reverse()) expect(await postNotify(shop, f)).toBe(200);
    for (const f of notes) expect(await postNotify(shop, f)).toBe(200);
    expect(await refundProblems(shop, order.orderNo)).toEqual([]);
    expect(shop.hookCalls.filter((c) => c.orderNo === order.orderNo && c.hook === 'onRefunded')).toHaveLength(1);
  });

  it('a refund the gateway comes to list with another amount than the ledger holds is flagged, never rewritten', async () => {
    const order = await paidIn(shop, orderNo('DIFF'), 10_000);
    const staff = new Staff(shop, 'diff');
    await staff.get(`/orders/${order.id}`);
    expect((await staff.post(`/orders/${order.id}/refund`, { refund_amount: '10.00' })).status).toBe(303);
    await shop.sandbox.notifier.flush();
    const note = held(shop, order.orderNo).find((f) => f.refund_reference_id !== undefined)!;
    expect(await postNotify(shop, note)).toBe(200);
    // The same reference with another amount, while the gateway's refund search agrees with the ledger: nothing to tell.
    expect(await postNotify(shop, resigned(shop, note, { refund_amount: '20.00' }))).toBe(200);
    expect(await shop.kit.store.get(order.id)).toMatchObject({ refundedAmount: 1_000, attention: null });
    // The gateway's own record of the refund changes: its search now lists 20.00 under the reference.
    const ledger = shop.sandbox.ledger;
    if (!(ledger instanceof LedgerStore)) throw new Error('the sandbox ledger is not a LedgerStore');
    const row = ledger.refunds().find((r) => r.refundReferenceId === note.refund_reference_id)!;
    ledger.refundRows.put(row.refundReferenceId, { ...row, refundAmount: 2_000 });
    expect(await postNotify(shop, resigned(shop, note, { refund_amount: '30.00' }))).toBe(200);
    const stored = (await shop.kit.store.get(order.id))!;
    expect(stored.refundedAmount).toBe(1_000);
    // Staff are told the gateway reported two figures for one refund.
    expect(stored.attention).toMatch(/is reported as 2000 USD, the refund ledger holds 1000/);
  });

  it('a refund notification naming one order\'s transaction and another order\'s number is not recorded on the other order', async () => {
    const a = await paidIn(shop, orderNo('CROSS-A'), 5_000);
    const b = await paidIn(shop, orderNo('CROSS-B'), 5_000);
    expect((await refundBehindTheKit(shop, a, 1_000)).ok).toBe(true);
    await shop.sandbox.notifier.flush();
    const note = held(shop, a.orderNo).find((f) => f.refund_reference_id !== undefined)!;
    // The gateway's query does not confirm a refund of B: retried (503), never recorded on B.
    expect(await postNotify(shop, resigned(shop, note, { order_no: b.orderNo }))).toBe(503);
    const after = (await shop.kit.store.get(b.id))!;
    expect(after.refundedAmount).toBe(0);
    expect(await shop.kit.store.listRefunds(b.id)).toEqual([]);
  });

  it('a dispute after a full refund: the shop follows the gateway and keeps the refunded amount', async () => {
    const order = await paidIn(shop, orderNo('CBFULL'), 3_000);
    const staff = new Staff(shop, 'cbfull');
    await staff.get(`/orders/${order.id}`);
    expect((await staff.post(`/orders/${order.id}/refund`, { refund_amount: '30.00' })).status).toBe(303);
    await control(shop.gateway.baseUrl, `transactions/${order.transactionId!}/dispute`, {});
    await shop.sandbox.notifier.flush();
    const notes = held(shop, order.orderNo);
    for (const f of [...notes].reverse()) expect(await postNotify(shop, f)).toBe(200);
    const stored = (await shop.kit.store.get(order.id))!;
    expect(stored.refundedAmount).toBe(3_000);
    expect(stored.state).toBe('chargeback');
    expect(stored.attention).not.toBeNull();
  });
});
