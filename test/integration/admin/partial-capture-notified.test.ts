/**
 * A partial capture and the gateway's own report of it, over real HTTP: the capture notification
 * (and the query) repeat the authorised amount, whichever order they arrive in. The order must
 * record what was captured, once (`onPaid` once), and what remains refundable must follow it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransportError } from '../../../server/errors.js';
import type { BatchApi } from '../../../server/gateway/operations/batch.js';
import { captureOrder } from '../../../server/orders/capture.js';
import { Staff } from '../../reliability/support/refund-race.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { held, paidIn, postNotify } from '../hostile/support.js';

let shop: Shop;
beforeAll(async () => {
  shop = await startShop({ admin: true, captureMode: 'manual', notifyTimeScale: 0.00001 });
  // Notifications are kept at the sandbox and posted by the test, in the order each case needs.
  shop.sandbox.faults.add({ kind: 'dropNotification' });
});
afterAll(async () => {
  await shop.close();
});

const orderNo = (tag: string): string => `PCN-${tag}-${Date.now().toString(36)}`;
const onPaid = (no: string): number => shop.hookCalls.filter((c) => c.hook === 'onPaid' && c.orderNo === no).length;

async function deliverHeld(no: string): Promise<void> {
  await shop.sandbox.notifier.flush();
  for (const fields of held(shop, no)) expect(await postNotify(shop, fields)).toBe(200);
}

describe('a partial capture and the gateway\'s report of it', () => {
  it('staff capture 60.00 of 100.00; the capture notification afterwards changes nothing', async () => {
    const order = await paidIn(shop, orderNo('after'), 10_000);
    expect(order.state).toBe('authorized');
    const staff = new Staff(shop, 'dana');
    await staff.get(`/orders/${order.id}`);
    expect((await staff.post(`/orders/${order.id}/capture`, { capture_amount: '60.00' })).status).toBe(303);
    await deliverHeld(order.orderNo);
    const after = await shop.kit.store.get(order.id);
    expect(after).toMatchObject({ state: 'paid', capturedAmount: 6_000, attention: null });
    expect(onPaid(order.orderNo)).toBe(1);
    const page = await staff.get(`/orders/${order.id}`);
    expect(page.text).toContain('Refund amount (USD, up to 60.00 USD)');
    expect(page.text).toContain('40.00 USD of the authorisation, not captured');
  });

  it('the notification reaching the shop before the capture\'s answer records the amount requested, not the authorised one', async () => {
    const order = await paidIn(shop, orderNo('before'), 10_000);
    // The shop's code captures; the gateway's notification overtakes its answer.
    const batch: Pick<BatchApi, 'capture'> = {
      capture: async (orders, options) => {
        const results = await shop.kit.client.batch.capture(orders, options);
        await deliverHeld(order.orderNo);
        expect(await shop.kit.store.get(order.id)).toMatchObject({ state: 'paid', capturedAmount: 2_500 });
        return results;
      },
    };
    const result = await captureOrder({ client: { batch }, engine: shop.kit.engine, store: shop.kit.store }, order.id, { amount: 2_500 });
    expect(result).toMatchObject({ status: 'captured', amount: 2_500, order: { state: 'paid', capturedAmount: 2_500 } });
    expect(shop.sandbox.ledger.transaction(order.orderNo)?.capturedAmount).toBe(2_500);
    expect(onPaid(order.orderNo)).toBe(1);

    // Refunding the 25.00 captured ends the order refunded, here as at the gateway.
    const staff = new Staff(shop, 'dana');
    await staff.get(`/orders/${order.id}`);
    expect((await staff.post(`/orders/${order.id}/refund`, { refund_amount: '25.00' })).status).toBe(303);
    await deliverHeld(order.orderNo);
    await shop.kit.engine.confirm(order.id, 'admin', 'dana');
    expect(await shop.kit.store.get(order.id)).toMatchObject({ state: 'refunded', capturedAmount: 2_500, refundedAmount: 2_500, attention: null });
  });

  it('a query sync after a partial capture whose answer was lost records the amount requested', async () => {
    const order = await paidIn(shop, orderNo('lost'), 8_000);
    const batch: Pick<BatchApi, 'capture'> = {
      capture: async (orders, options) => {
        const results = await shop.kit.client.batch.capture(orders, options);
        // The answer is lost on its way back: the outcome is unknown to the shop.
        const lost = new TransportError('ERR_TRANSPORT_TIMEOUT', 'timed out', { outcomeUnknown: true });
        return results.map((r) => ({ ...r, ok: false, status: null, message: null, element: null, error: lost }));
      },
    };
    const result = await captureOrder({ client: { batch }, engine: shop.kit.engine, store: shop.kit.store }, order.id, { amount: 3_000 });
    expect(result.status).toBe('unknown');
    expect(await shop.kit.store.get(order.id)).toMatchObject({ state: 'authorized', capturedAmount: 0 });
    await shop.kit.engine.confirm(order.id, 'admin', 'staff');
    expect(await shop.kit.store.get(order.id)).toMatchObject({ state: 'paid', capturedAmount: 3_000 });
  });
});
