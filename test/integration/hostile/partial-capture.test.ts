/**
 * Hostile: an authorisation captured in part at the gateway (the portal, another system), then
 * refunded by staff. Neither the query nor the capture notification (which repeats the order's
 * amount) tells the kit what was captured, so it records a full capture: it offers 100.00 as
 * refundable, and once the 60.00 captured are refunded the gateway says refunded while the shop
 * says partially refunded. After a query sync, the shop's state must be the gateway's, or the
 * order flagged for staff (the gateway's complete refund list says refunded in full).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refundProblems, Staff } from '../../reliability/support/refund-race.js';
import { startShop, type Shop } from '../../reliability/support/shop.js';
import { held, paidIn, postNotify } from './support.js';

let shop: Shop;
beforeAll(async () => {
  shop = await startShop({ admin: true, captureMode: 'manual', notifyTimeScale: 0.00001 });
  shop.sandbox.faults.add({ kind: 'dropNotification' });
});
afterAll(async () => {
  await shop.close();
});

describe('a partial capture made at the gateway, then refunds', () => {
  for (const road of ['notification', 'query sync'] as const) {
    it(`60.00 of 100.00 captured, learned by ${road}: refunding the 60.00 ends refunded, as at the gateway, or flagged`, async () => {
      const order = await paidIn(shop, `PCAP-${road === 'notification' ? 'N' : 'Q'}-${Date.now().toString(36)}`, 10_000);
      expect(order.state).toBe('authorized');
      const [captured] = await shop.kit.client.batch.capture([{ transaction_id: order.transactionId!, order_no: order.orderNo, currency: 'USD', amount: 6_000 }]);
      expect(captured?.ok).toBe(true);
      expect(shop.sandbox.ledger.transaction(order.orderNo)!.capturedAmount).toBe(6_000);
      await shop.sandbox.notifier.flush();
      if (road === 'notification') for (const f of held(shop, order.orderNo)) expect(await postNotify(shop, f)).toBe(200);
      else await shop.kit.engine.confirm(order.id, 'admin', 'staff');
      const paid = (await shop.kit.store.get(order.id))!;
      expect(paid.state).toBe('paid');

      const staff = new Staff(shop, `pcap-${road}`);
      await staff.get(`/orders/${order.id}`);
      expect((await staff.post(`/orders/${order.id}/refund`, { refund_amount: '60.00' })).status).toBe(303);
      await shop.sandbox.notifier.flush();
      for (const f of held(shop, order.orderNo)) expect(await postNotify(shop, f)).toBe(200);
      // The documented remedy when in doubt: query sync.
      await shop.kit.engine.confirm(order.id, 'admin', 'staff');
      const after = (await shop.kit.store.get(order.id))!;
      expect(after.refundedAmount).toBe(shop.sandbox.ledger.transaction(order.orderNo)!.refundedAmount);
      if (after.attention === null) expect(await refundProblems(shop, order.orderNo)).toEqual([]);
    });
  }
});
