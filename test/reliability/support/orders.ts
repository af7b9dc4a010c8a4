/** Reading orders back from the shop's store, and talking to the sandbox's control API. */
import type { OrderStore } from '../../../server/orders/store.js';
import type { Order } from '../../../server/orders/types.js';

export const FUTURE_YEAR = String(new Date().getUTCFullYear() + 3);

export interface StoredOrder {
  order: Order;
  transitions: { from: string | null; to: string | null }[];
  eventTypes: string[];
}

export async function readOrders(store: OrderStore, orderNos: readonly string[]): Promise<{ found: StoredOrder[]; missing: string[] }> {
  const found: StoredOrder[] = [];
  const missing: string[] = [];
  for (const orderNo of orderNos) {
    const order = await store.getByOrderNo(orderNo);
    if (order === null) {
      missing.push(orderNo);
      continue;
    }
    const events = await store.listEvents(order.id);
    found.push({
      order,
      transitions: events.filter((e) => e.type === 'transition').map((e) => ({ from: e.fromState, to: e.toState })),
      eventTypes: events.map((e) => e.type),
    });
  }
  return { found, missing };
}

/** POST to the sandbox's control API; answers the parsed JSON. */
export async function control(gatewayUrl: string, path: string, body: unknown = {}): Promise<unknown> {
  const res = await fetch(`${gatewayUrl}/_sandbox/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`control ${path} answered ${String(res.status)}: ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

/** A card payment input for the kit's client, matching an order made by the shop route. */
export function cardPayment(orderNo: string, amount: number, card: string, notifyUrl: string) {
  return {
    order_no: orderNo,
    currency: 'USD',
    amount,
    items: [{ name: 'Tea pot', sku: 'TP-1', unitPrice: amount, quantity: 1 }],
    website: 'shop.test',
    shopper_id: 'shopper-1',
    shopper_email: 'shopper@example.test',
    shopper_ip: '127.0.0.1',
    card,
    expiration_month: '12',
    expiration_year: FUTURE_YEAR,
    security_code: '737',
    first_name: 'Ada',
    last_name: 'Lovelace',
    open3d: 'no3DS',
    notify_url: notifyUrl,
  };
}
