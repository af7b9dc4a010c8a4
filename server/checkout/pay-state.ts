/**
 * The pay route's view of the order: finding it from the signed pay token, and marking it
 * submitted exactly once before anything is sent to the gateway.
 */
import type { Request, Response } from 'express';
import type { Order, PaymentMethodKind } from '../orders/types.js';
import type { KitContext } from './context.js';
import type { PayPages } from './render-pages.js';

/** Event dedupe key of the submission: a second one is refused by the store itself. */
export const SUBMITTED_KEY = 'pay:submitted';

/**
 * True when an unverifiable token still reads as an expired pay token. Only chooses between
 * "expired" (410) and "not valid" (404) wording; nothing is trusted from it.
 */
export function looksExpired(token: string, now = Date.now()): boolean {
  const payload = token.split('.')[0] ?? '';
  const parts = Buffer.from(payload, 'base64url').toString('utf8').split('.');
  if (parts.length !== 3 || parts[1] !== 'pay' || !/^\d{1,12}$/.test(parts[2] ?? '')) return false;
  return Number(parts[2]) * 1000 <= now;
}

/** The order named by the pay token, or null after answering 404/410. */
export async function orderForToken(ctx: KitContext, pages: PayPages, req: Request, res: Response): Promise<Order | null> {
  const token = String(req.params.token ?? '');
  const claim = ctx.tokens.verify(token, 'pay');
  const order = claim === null ? null : await ctx.store.get(claim.orderId);
  if (order !== null) return order;
  if (claim === null && looksExpired(token)) {
    pages.error(req, res, 410, {
      heading: 'This payment link has expired',
      message: 'For your security payment links expire. No money was taken. Please return to the shop to get a new link.',
    });
  } else {
    pages.error(req, res, 404, {
      heading: 'Payment link not valid',
      message: 'This payment link is not valid. No money was taken. Please return to the shop and try again.',
    });
  }
  return null;
}

/**
 * Sets `data.submittedAt` and `method` by compare-and-set on the version read, with an event
 * whose dedupe key is unique per order. Null when another request got there first (the caller
 * must then send nothing to the gateway).
 */
export async function markSubmitted(ctx: KitContext, order: Order, method: PaymentMethodKind): Promise<Order | null> {
  const submittedAt = new Date().toISOString();
  const stored = await ctx.store.transition(
    order.id,
    order.version,
    { method, data: { submittedAt } },
    { type: 'submitted', source: 'pay', fromState: order.state, toState: order.state, dedupeKey: SUBMITTED_KEY, actor: 'shopper', data: { method } },
  );
  if (stored.ok) return stored.order;
  ctx.logger.info({ orderId: order.id, orderNo: order.orderNo }, 'Concurrent pay submission refused');
  return null;
}
