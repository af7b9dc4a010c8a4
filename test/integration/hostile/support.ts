/**
 * Shared pieces of the hostile tests: a paid order in any currency, the sandbox's notifications
 * for an order, posting one to the shop, a refund made at the gateway behind the kit's back, and a
 * payout whose answer is lost.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { signMessage } from '../../../server/gateway/signing.js';
import { createCheckoutKit, type CheckoutKit } from '../../../server/kit.js';
import type { OrderHooks } from '../../../server/orders/hooks.js';
import type { OrderStore } from '../../../server/orders/store.js';
import type { Order } from '../../../server/orders/types.js';
import { cardPayment } from '../../reliability/support/orders.js';
import type { Staff } from '../../reliability/support/refund-race.js';
import { ACCOUNT_ID, MERCHANT_ID, type Shop } from '../../reliability/support/shop.js';

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

/**
 * Staff send a 10.00 EUR payout from the admin while the gateway's answer is lost (a timeout
 * fault): the gateway makes it and only its notification tells the shop. Returns the request id.
 */
export async function payoutWithLostAnswer(shop: Shop, staff: Staff, reference: string): Promise<string> {
  const page = await staff.get('/payouts');
  const requestId = /name="request_id" value="([0-9a-f-]{36})"/.exec(page.text)?.[1] ?? '';
  shop.sandbox.faults.add({ kind: 'timeout', operation: 'payout', times: 1 });
  const res = await staff.post('/payouts', {
    request_id: requestId, payment_amount: '10.00', payment_currency: 'EUR', payment_method: 'SWIFT', fee_paid_by: 'PAYER',
    swift_charge_option: 'SHARED', fund_source: 'DepositAccount', reason: 'Refund of a deposit', reference,
    'beneficiary.entity_type': 'COMPANY', 'beneficiary.company_name': 'Tea Leaves Ltd', 'beneficiary.address.country_code': 'GB',
    'beneficiary.bank_details.account_name': 'Tea Leaves Ltd', 'beneficiary.bank_details.bank_country_code': 'GB',
    'payer.entity_type': 'COMPANY', 'payer.address.country_code': 'DE',
  });
  if (res.status !== 303) throw new Error(`the payout form answered ${String(res.status)}`);
  await shop.sandbox.notifier.flush();
  return requestId;
}

/** Posts a form and answers its status. */
export async function postForm(url: string, fields: Record<string, string>): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  await res.text();
  return res.status;
}

/** A second shop instance beside `shop` (same gateway, secrets and settings) on `store`, listening on its own port. */
export async function secondInstance(shop: Shop, store: OrderStore, hooks: OrderHooks): Promise<{ kit: CheckoutKit; close(): Promise<void> }> {
  const app = express();
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => {
      resolve(s);
    });
  });
  const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  const kit = createCheckoutKit({
    store,
    gateway: { baseUrl: shop.gateway.baseUrl, merchantId: MERCHANT_ID, accountId: ACCOUNT_ID, signKey: shop.signKey, timeoutMs: 5000 },
    publicUrl: `${url}/checkout`,
    tokenSecret: shop.tokenSecret,
    website: 'shop.test',
    hooks,
    rateLimit: { limit: 1_000_000 },
    sweeper: { enabled: false, stuckAfterMs: 1, expireAfterMs: 2 },
  });
  app.use('/checkout', kit.router);
  return {
    kit,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await kit.close();
    },
  };
}
