/**
 * Shared pieces of the hostile tests: a paid order in any currency, the sandbox's notifications
 * for an order, posting one to the shop, and a refund made at the gateway behind the kit's back.
 */
import { signMessage } from '../../../server/gateway/signing.js';
import type { Order } from '../../../server/orders/types.js';
import { cardPayment } from '../../reliability/support/orders.js';
import type { Shop } from '../../reliability/support/shop.js';

export const APPROVE = '4242424242424242';

export async function paidIn(shop: Shop, orderNo: string, amount: number, currency = 'USD'): Promise<Order> {
  const { orderId } = await shop.createOrder(orderNo, amount, currency);
  const body = { ...cardPayment(orderNo, amount, APPROVE, shop.kit.context.urls.notify()), currency };
  const paid = await shop.kit.client.payments.authorise(body, { timeoutMs: 30_000 });
  const applied = await shop.kit.engine.apply({
    orderId, source: 'pay', outcome: paid.outcome, transactionId: paid.transactionId, amount: paid.amount, currency: paid.currency, maskedCard: paid.maskedCard,
  });
  if (applied.order === null) throw new Error('order vanished');
  return applied.order;
}

export function held(shop: Shop, orderNo: string): Record<string, string>[] {
  return shop.sandbox.ledger.notifications().filter((n) => n.orderNo === orderNo).map((n) => n.fields);
}

export async function postNotify(shop: Shop, fields: Record<string, string>): Promise<number> {
  const res = await fetch(shop.kit.context.urls.notify(), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  await res.text();
  return res.status;
}

/** A refund sent straight to the gateway (the portal, another system): the kit's engine never hears of it. */
export async function refundBehindTheKit(shop: Shop, order: Order, amount: number): Promise<{ ok: boolean; referenceId: string | null }> {
  const [r] = await shop.kit.client.batch.refund([{ transaction_id: order.transactionId ?? '', order_no: order.orderNo, currency: order.currency, amount: order.amount, refund_amount: amount }]);
  return { ok: r?.ok ?? false, referenceId: r?.element?.refund_reference_id ?? null };
}

/** `fields` changed by `overrides` and signed again with the shop's key: a notification the gateway could have sent. */
export function resigned(shop: Shop, fields: Record<string, string>, overrides: Record<string, string>): Record<string, string> {
  const body: Record<string, string> = { ...fields, ...overrides };
  delete body.encryption_data;
  body.encryption_data = signMessage('notification', body, shop.signKey);
  return body;
}
