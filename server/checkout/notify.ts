/**
 * POST /notify — the gateway's server-to-server notification, HTTP only:
 *  1. read the body inside the router (whatever parsers the shop mounted);
 *  2. `client.notifications.verify(fields)`: signature, account, fields, kind, dedupe key;
 *  3. hand the fact to where it belongs (notification-facts.ts): the order's engine, the payout,
 *     or the list of unmatched notifications;
 *  4. answer.
 * Only a notification that cannot be trusted gets a 4xx (bad signature 401, another account
 * 403). Everything signed is taken and acknowledged 2xx once it is durably kept — also a kind
 * the kit does not understand — because the gateway retries anything else for about 36 hours.
 * A claim the gateway's query cannot confirm yet, or a store or gateway failure, gets 503 so the
 * gateway retries it (docs/orders.md, "Notifications ahead of the query").
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { NotificationError } from '../errors.js';
import { summarizeNotification, type NotificationFact } from '../gateway/operations/notifications.js';
import { inSpan } from '../tracing.js';
import type { NotificationResult } from '../observability/observer.js';
import type { KitContext } from './context.js';
import { sendNoStore } from '../http/no-store.js';
import { HttpError, readPostedBody } from '../http/posted-body.js';
import { findNotifiedOrder, takeNotification } from './notification-facts.js';

export { DEDUPE_FIELDS, notificationDedupeKey, notificationOutcome, refundDedupeKey } from '../gateway/operations/notifications.js';

const NOTIFY_BODY_LIMIT = 64 * 1024;
/** Seconds the gateway is asked to wait before retrying a notification not taken yet. */
const RETRY_AFTER_S = 5;

function reply(res: Response, status: number, text: string): void {
  if (status === 503) res.setHeader('Retry-After', String(RETRY_AFTER_S));
  sendNoStore(res, status, 'text/plain; charset=utf-8', text);
}

export interface NotifyRoutes {
  router: Router;
  /** POST /notify's handler. */
  notify: RequestHandler;
  /** The route it is registered on, for `req.route` when the router calls it before its walk. */
  notifyRoute: object;
}

/** Adds the routes to `router` (a new one by default). */
export function createNotifyRoutes(ctx: KitContext, router: Router = Router()): NotifyRoutes {
  async function reject(req: Request, f: Record<string, string>, reason: string): Promise<void> {
    const data = { reason, ip: req.ip ?? null, ...summarizeNotification(f) };
    const order = await findNotifiedOrder(ctx, f.order_no, f.transaction_id).catch(() => null);
    ctx.logger.warn({ ...data, orderId: order?.id ?? null }, 'checkout: notification rejected');
    if (order === null) return;
    // One event per order, reason and hour: anyone can post to /notify, so the bodies that name
    // an order must not grow its log without bound (every one is still logged and counted).
    const dedupeKey = `rejected:${reason}:${new Date().toISOString().slice(0, 13)}`;
    await ctx.engine.record(order.id, { type: 'notification_rejected', source: 'notify', actor: 'gateway', dedupeKey, data }).catch((err: unknown) => {
      ctx.logger.error({ orderId: order.id, err }, 'checkout: could not record a rejected notification');
    });
  }

  const notify: RequestHandler = (req, res) => inSpan('checkout notify', {}, (span) => handle(req, res, (result) => {
    span.setAttribute('checkout.notification.result', result);
    ctx.observer?.notification(result);
  }));
  const notifyRoute = router.route('/notify');
  notifyRoute.post(notify);

  async function handle(req: Request, res: Response, observe: (result: NotificationResult) => void): Promise<void> {
    let f: Record<string, string>;
    try {
      f = (await readPostedBody(req, NOTIFY_BODY_LIMIT)).fields;
    } catch (err) {
      observe('unreadable');
      reply(res, err instanceof HttpError ? err.status : 400, 'unreadable body');
      return;
    }

    let fact: NotificationFact;
    try {
      fact = ctx.client.notifications.verify(f);
    } catch (err) {
      if (!(err instanceof NotificationError)) throw err;
      const account = err.code === 'ERR_NOTIFICATION_ACCOUNT';
      observe(account ? 'other_account' : 'refused_signature');
      await reject(req, f, account ? 'other_account' : 'bad_signature');
      reply(res, account ? 403 : 401, account ? 'not this merchant account' : 'invalid signature');
      return;
    }

    try {
      const taken = await takeNotification(ctx, fact);
      ctx.logger.info({ kind: fact.kind, type: fact.type, orderNo: fact.orderNo, taken: taken.status, reason: taken.reason }, 'checkout: notification handled');
      observe(taken.status === 'retry' ? 'retry' : (taken.result ?? 'applied'));
      if (taken.status === 'retry') reply(res, 503, 'try again later');
      else reply(res, 200, 'OK');
    } catch (err) {
      // Gateway unreachable while confirming, or the store failed: nothing durable, so retry.
      observe('error');
      ctx.logger.error({ orderNo: fact.orderNo, err }, 'checkout: notification not settled');
      reply(res, 503, 'try again later');
    }
  }
  return { router, notify, notifyRoute };
}
