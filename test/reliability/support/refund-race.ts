/**
 * Staff refunds raced over real HTTP: a paid order, `parallel` partial refunds posted to the
 * admin's order page at once, while the gateway's refund notifications (held back by the
 * sandbox) are posted to the shop's /notify as they appear, several copies each in shuffled
 * order, and all of them once more afterwards. Used by the refund-ledger scenario and its
 * integration test.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Order } from '../../../server/orders/types.js';
import { cardPayment } from './orders.js';
import type { Rng } from './rng.js';
import { STAFF_HEADER, type Shop } from './shop.js';

const APPROVE = '4242424242424242';

/** A signed-in staff browser on the shop's admin: the CSRF cookie and field of the last page read. */
export class Staff {
  #cookie = '';
  #token = '';

  constructor(private readonly shop: Shop, readonly id = 'staff') {}

  async get(path: string): Promise<{ status: number; text: string }> {
    const res = await fetch(`${this.shop.url}/admin${path}`, { headers: { [STAFF_HEADER]: this.id, cookie: this.#cookie } });
    const csrf = res.headers.getSetCookie().find((c) => c.startsWith('admin_csrf='));
    if (csrf !== undefined) this.#cookie = csrf.split(';')[0] ?? '';
    const text = await res.text();
    const field = /name="_csrf" value="([^"]+)"/.exec(text);
    if (field?.[1] !== undefined) this.#token = field[1];
    return { status: res.status, text };
  }

  async post(path: string, fields: Record<string, string>): Promise<{ status: number; location: string }> {
    const res = await fetch(`${this.shop.url}/admin${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { [STAFF_HEADER]: this.id, cookie: this.#cookie, origin: this.shop.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: this.#token, ...fields }).toString(),
    });
    await res.text();
    return { status: res.status, location: decodeURIComponent(res.headers.get('location') ?? '') };
  }
}

/**
 * A fetch that holds the gateway's refund answers back 0–`maxMs` ms after they arrive, so the
 * refund's notification (posted as soon as it appears) often reaches the shop first.
 */
export function slowRefundAnswers(rng: Rng, maxMs: number): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.endsWith('/v1/refund')) return res;
    const body = await res.arrayBuffer();
    await sleep(rng.int(maxMs + 1));
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** An order the shop recorded as paid, authorised (auto capture) through the kit's client. */
export async function paidOrder(shop: Shop, orderNo: string, amount: number): Promise<Order> {
  const { orderId } = await shop.createOrder(orderNo, amount);
  const paid = await shop.kit.client.payments.authorise(cardPayment(orderNo, amount, APPROVE, shop.kit.context.urls.notify()), { timeoutMs: 30_000 });
  const applied = await shop.kit.engine.apply({
    orderId, source: 'pay', outcome: paid.outcome, transactionId: paid.transactionId, amount: paid.amount, currency: paid.currency, maskedCard: paid.maskedCard,
  });
  if (applied.order?.state !== 'paid') throw new Error(`${orderNo} is ${applied.order?.state ?? 'missing'} after payment`);
  return applied.order;
}

const postNotify = async (shop: Shop, fields: Record<string, string>): Promise<number> => {
  const res = await fetch(shop.kit.context.urls.notify(), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  await res.text();
  return res.status;
};

/** The refund notifications the sandbox held back for `orderNo`. */
function heldRefunds(shop: Shop, orderNo: string): { id: string; fields: Record<string, string> }[] {
  return shop.sandbox.ledger.notifications().filter((n) => n.orderNo === orderNo && n.status === 'dropped' && n.fields.refund_reference_id !== undefined);
}

export interface RaceResult {
  /** Notification posts made while the staff's refunds were still being answered. */
  duringRace: number;
  /** HTTP statuses of the staff's posts (303: sent; 400: refused before sending). */
  statuses: number[];
  /** Notification posts and the statuses that were not 2xx. */
  notifications: number;
  notificationErrors: string[];
}

/**
 * Races `parallel` refunds of `refundAmount` on `order` against the replay of their
 * notifications (`copies` each, shuffled). Needs a `dropNotification` fault for the order.
 */
export async function raceRefunds(shop: Shop, order: Order, refundAmount: string, parallel: number, copies: number, rng: Rng): Promise<RaceResult> {
  const staff = new Staff(shop, `staff-${order.orderNo}`);
  await staff.get(`/orders/${order.id}`);
  const result: RaceResult = { duringRace: 0, statuses: [], notifications: 0, notificationErrors: [] };
  const sent = new Set<string>();
  const replay = async (all: boolean): Promise<void> => {
    const fresh = heldRefunds(shop, order.orderNo).filter((n) => all || !sent.has(n.id));
    for (const n of fresh) sent.add(n.id);
    const posts = rng.shuffle(fresh.flatMap((n) => Array.from({ length: copies }, () => n.fields)));
    result.notifications += posts.length;
    const statuses = await Promise.all(posts.map((fields) => postNotify(shop, fields)));
    statuses.forEach((status, i) => {
      if (status < 200 || status > 299) result.notificationErrors.push(`${order.orderNo} ${posts[i]?.refund_reference_id ?? '?'}: ${String(status)}`);
    });
  };
  let done = false;
  const replayer = (async () => {
    while (!done) {
      const before = result.notifications;
      await replay(false);
      result.duringRace += result.notifications - before;
      await sleep(2);
    }
  })();
  try {
    result.statuses = (await Promise.all(Array.from({ length: parallel }, () => staff.post(`/orders/${order.id}/refund`, { refund_amount: refundAmount })))).map((r) => r.status);
  } finally {
    done = true;
    await replayer;
  }
  await shop.sandbox.notifier.flush();
  // Late copies, all of them once more, shuffled: nothing may change.
  await replay(true);
  return result;
}

/** What is wrong with the order against the sandbox's transaction: totals and state. */
export async function refundProblems(shop: Shop, orderNo: string): Promise<string[]> {
  const order = await shop.kit.store.getByOrderNo(orderNo);
  const tx = shop.sandbox.ledger.transaction(orderNo);
  if (order === null || tx === undefined) return [`${orderNo}: missing (${order === null ? 'shop' : 'sandbox'})`];
  const problems: string[] = [];
  const rows = await shop.kit.store.listRefunds(order.id);
  const succeeded = rows.filter((r) => r.status === 'succeeded');
  const expected = tx.refundedAmount === 0 ? 'paid' : tx.refundedAmount >= tx.capturedAmount ? 'refunded' : 'partially_refunded';
  if (order.refundedAmount !== tx.refundedAmount) problems.push(`${orderNo}: shop refunded ${String(order.refundedAmount)}, gateway ${String(tx.refundedAmount)}`);
  if (order.state !== expected) problems.push(`${orderNo}: shop ${order.state}, expected ${expected} (gateway refunded ${String(tx.refundedAmount)} of ${String(tx.capturedAmount)})`);
  const gatewayRefs = shop.sandbox.ledger.refunds().filter((r) => r.orderNo === orderNo).map((r) => r.refundReferenceId).sort();
  const shopRefs = succeeded.map((r) => r.referenceId ?? '(none)').sort();
  if (JSON.stringify(gatewayRefs) !== JSON.stringify(shopRefs)) problems.push(`${orderNo}: gateway refunds ${gatewayRefs.join(',')}, shop rows ${shopRefs.join(',')}`);
  if (rows.some((r) => r.status === 'pending')) problems.push(`${orderNo}: ${String(rows.filter((r) => r.status === 'pending').length)} refund rows still pending`);
  if (order.attention !== null) problems.push(`${orderNo}: flagged: ${order.attention}`);
  return problems;
}
