/**
 * The pay route's view of the order: finding it from the signed pay token, and submitting it
 * (created → pending, through the reconcile engine) exactly once before anything is sent.
 */
import type { Request, Response } from 'express';
import type { ApplyResult } from '../orders/engine-types.js';
import type { Order, PaymentMethodKind } from '../orders/types.js';
import type { KitContext } from './context.js';
import type { PayPages } from './render-pages.js';
import { useOrderLocale } from './render.js';

/** Dedupe key of the submission fact: a second one is `duplicate`, refused by the store itself. */
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

/** Still payable from the pay page: created, and never submitted to the gateway. */
export function awaitsSubmission(order: Order): boolean {
  return order.state === 'created' && order.data.submittedAt === undefined;
}

/** The order named by the pay token, or null after answering 404/410. */
export async function orderForToken(ctx: KitContext, pages: PayPages, req: Request, res: Response): Promise<Order | null> {
  const token = String(req.params.token ?? '');
  const claim = ctx.tokens.verify(token, 'pay');
  const order = claim === null ? null : await ctx.store.get(claim.orderId);
  if (order !== null) {
    useOrderLocale(req, res, order);
    return order;
  }
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
 * True only for the one call whose fact moved the order `created → pending` and stored the
 * submission's dedupe key: `duplicate`, `noop`, `busy` or any other answer means another
 * request (or another process) submitted it, or the order is no longer payable.
 */
export function submittedByThisCall(result: ApplyResult): result is ApplyResult & { order: Order } {
  const event = result.event;
  return (
    result.status === 'applied' &&
    result.order?.state === 'pending' &&
    event?.dedupeKey === SUBMITTED_KEY &&
    event.fromState === 'created' &&
    event.toState === 'pending'
  );
}

/** What submitting needs from the kit's context. */
export type SubmitContext = Pick<KitContext, 'engine' | 'store' | 'logger'>;

/**
 * Submits the order through the reconcile engine before anything is sent to the gateway: the fact
 * moves it `created → pending` (hooks see it) with `order.method`, `data.submittedAt` and
 * `data.method` in one compare-and-set, and its dedupe key `pay:submitted` is unique per order. Returns the submitted order only to the one
 * caller whose fact made that move; null otherwise (the caller must then send nothing).
 */
export async function markSubmitted(ctx: SubmitContext, order: Order, method: PaymentMethodKind): Promise<Order | null> {
  const submittedAt = new Date().toISOString();
  const result = await ctx.engine.apply({
    orderId: order.id,
    source: 'pay',
    actor: 'shopper',
    outcome: 'pending',
    dedupeKey: SUBMITTED_KEY,
    data: { method },
    orderData: { submittedAt, method },
    method,
  }, { known: order });
  if (submittedByThisCall(result)) return result.order;
  ctx.logger.info(
    { orderId: order.id, orderNo: order.orderNo, status: result.status, state: result.order?.state },
    'Pay submission not sent: already submitted, busy elsewhere or no longer payable',
  );
  return null;
}
