/**
 * POST /notify — the gateway's server-to-server notification, in five steps:
 *  1. read the body inside the router (whatever parsers the shop mounted);
 *  2. verify `encryption_data` against every configured key in constant time, failing closed;
 *  3. validate the fields;
 *  4. find the order (order_no, then transaction_id);
 *  5. hand the fact to the reconcile engine, which checks amount and currency, drops
 *     duplicates by the dedupe key and, by default, confirms with the gateway first.
 * It answers 2xx only once the fact is durably stored (applied, duplicate, noop, or recorded as
 * a mismatch), so the gateway keeps retrying anything the kit could not settle.
 */
import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { isKitError } from '../errors.js';
import { outcomeOfOrderStatus, outcomeOfPaymentStatus, type PaymentOutcome } from '../gateway/codes.js';
import { parseWireAmount } from '../gateway/money.js';
import { notificationSchema } from '../gateway/schemas/notifications.js';
import { zodIssuesToFields } from '../gateway/schemas/common.js';
import { resolveRecipes, verifyMessage } from '../gateway/signing.js';
import { MASKED_CARD_RE } from '../orders/fact-schema.js';
import type { PaymentFact } from '../orders/engine-types.js';
import type { Order } from '../orders/types.js';
import type { KitContext } from './context.js';
import { sendNoStore } from './no-store.js';
import { HttpError, readPostedBody } from './notify-body.js';

const NOTIFY_BODY_LIMIT = 64 * 1024;

/** Fields that identify one fact: the same notification delivered twice has the same key. */
export const DEDUPE_FIELDS = ['webhooks_type', 'transaction_id', 'order_status', 'payment_status', 'refund_reference_id', 'refund_amount'] as const;

/**
 * One key per refund, whoever reports it first: the admin action that sent it or the gateway's
 * notification of it. So a refund is counted once even though it arrives by two roads.
 */
export function refundDedupeKey(refundReferenceId: string): string {
  return `refund:${refundReferenceId}`;
}

export function notificationDedupeKey(fields: Readonly<Record<string, string | undefined>>): string {
  const outcome = notificationOutcome(fields);
  const ref = fields.refund_reference_id;
  if ((outcome === 'partially_refunded' || outcome === 'refunded') && ref !== undefined && ref !== '') return refundDedupeKey(ref);
  const hash = createHash('sha256');
  for (const name of DEDUPE_FIELDS) hash.update(`${name}=${fields[name] ?? ''}\n`);
  return `notify:${hash.digest('hex')}`;
}

/** payment_status is the more detailed field (it knows refunds); order_status otherwise. */
export function notificationOutcome(fields: Readonly<Record<string, string | undefined>>): PaymentOutcome {
  const fromPayment = outcomeOfPaymentStatus(fields.payment_status);
  return fromPayment !== 'unknown' ? fromPayment : outcomeOfOrderStatus(fields.order_status);
}

/** The refund a refund notification reports, as the engine's `refunds` field (none without a reference and amount). */
function refundReport(outcome: PaymentOutcome, referenceId: string | undefined, amount: number | undefined): Pick<PaymentFact, 'refunds'> {
  if ((outcome !== 'partially_refunded' && outcome !== 'refunded') || referenceId === undefined || referenceId === '' || amount === undefined || amount <= 0) return {};
  return { refunds: [{ referenceId: referenceId.slice(0, 100), amount, status: 'succeeded' }] };
}

/** Card-free summary of a notification for events and logs. */
function summary(f: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['webhooks_type', 'order_no', 'transaction_id', 'order_status', 'payment_status', 'result_info', 'refund_reference_id', 'refund_amount', 'amount', 'currency'] as const) {
    const value = f[name];
    if (value !== undefined && value !== '') out[name] = value.slice(0, 200);
  }
  return out;
}

function reply(res: Response, status: number, text: string): void {
  sendNoStore(res, status, 'text/plain; charset=utf-8', text);
}

/** Adds the routes to `router` (a new one by default) and returns it. */
export function createNotifyRoutes(ctx: KitContext, router: Router = Router()): Router {
  const { gateway } = ctx.options;
  const keys = [gateway.signKey, ...gateway.verifyKeys].filter((k) => k.length > 0);
  const recipes = resolveRecipes(gateway.recipes);

  async function findOrder(orderNo: string | undefined, transactionId: string | undefined): Promise<Order | null> {
    const byNo = orderNo !== undefined && orderNo !== '' ? await ctx.store.getByOrderNo(orderNo.slice(0, 50)) : null;
    if (byNo !== null) return byNo;
    return transactionId !== undefined && transactionId !== '' ? ctx.store.getByTransactionId(transactionId.slice(0, 50)) : null;
  }

  async function reject(req: Request, f: Record<string, string>, reason: string): Promise<void> {
    const data = { reason, ip: req.ip ?? null, ...summary(f) };
    const order = await findOrder(f.order_no, f.transaction_id).catch(() => null);
    ctx.logger.warn({ ...data, orderId: order?.id ?? null }, 'checkout: notification rejected');
    if (order === null) return;
    // Keyed by the body, so replaying one forged notification does not grow the event list.
    const dedupeKey = `rejected:${createHash('sha256').update(JSON.stringify(f)).digest('hex')}`;
    await ctx.engine.record(order.id, { type: 'notification_rejected', source: 'notify', actor: 'gateway', dedupeKey, data }).catch((err: unknown) => {
      ctx.logger.error({ orderId: order.id, err }, 'checkout: could not record a rejected notification');
    });
  }

  router.post('/notify', async (req, res) => {
    let f: Record<string, string>;
    try {
      f = (await readPostedBody(req, NOTIFY_BODY_LIMIT)).fields;
    } catch (err) {
      reply(res, err instanceof HttpError ? err.status : 400, 'unreadable body');
      return;
    }

    if (keys.length === 0 || !verifyMessage('notification', f, f.encryption_data, keys, recipes)) {
      await reject(req, f, keys.length === 0 ? 'no_verify_key' : 'bad_signature');
      reply(res, 401, 'invalid signature');
      return;
    }
    if (f.merchant_id !== gateway.merchantId || f.account_id !== gateway.accountId) {
      await reject(req, f, 'other_account');
      reply(res, 403, 'not this merchant account');
      return;
    }

    const parsed = notificationSchema.safeParse(f);
    if (!parsed.success) {
      const issue = zodIssuesToFields(parsed.error)[0];
      ctx.logger.warn({ field: issue?.field, ...summary(f) }, 'checkout: invalid notification');
      reply(res, 400, `invalid ${issue?.field ?? 'notification'}: ${issue?.message ?? 'invalid'}`);
      return;
    }

    const order = await findOrder(f.order_no, f.transaction_id);
    if (order === null) {
      // Not 2xx: a notification meant for another shop (or sent too early) is retried later.
      ctx.logger.warn(summary(f), 'checkout: notification for an unknown order');
      reply(res, 404, 'unknown order');
      return;
    }

    const currency = f.currency ?? '';
    let amount: number | undefined;
    let refundAmount: number | undefined;
    try {
      amount = f.amount === undefined || f.amount === '' ? undefined : parseWireAmount(f.amount, currency, 'amount');
      refundAmount = f.refund_amount === undefined || f.refund_amount === '' ? undefined : parseWireAmount(f.refund_amount, currency, 'refund_amount');
    } catch (err) {
      reply(res, 400, `invalid ${isKitError(err) && 'field' in err ? String(err.field) : 'amount'}`);
      return;
    }

    const outcome = notificationOutcome(f);
    const sameOrderNo = f.order_no === undefined || f.order_no === '' || f.order_no === order.orderNo;
    try {
      const result = await ctx.engine.apply({
        orderId: order.id,
        ...(sameOrderNo ? {} : { orderNo: f.order_no }),
        transactionId: f.transaction_id === '' ? null : f.transaction_id,
        source: 'notify',
        outcome,
        ...(amount === undefined ? {} : { amount }),
        ...(currency === '' ? {} : { currency }),
        ...(f.card !== undefined && MASKED_CARD_RE.test(f.card) ? { maskedCard: f.card } : {}),
        // A refund's notification names the refund: one row of the order's refund ledger, counted
        // once however many times (and by however many roads) it arrives.
        ...refundReport(outcome, f.refund_reference_id, refundAmount),
        dedupeKey: notificationDedupeKey(f),
        actor: 'gateway',
        confirm: ctx.options.confirmNotifications,
        data: summary(f),
      }, { known: order });
      ctx.logger.info({ orderId: order.id, status: result.status, reason: result.reason, outcome }, 'checkout: notification handled');
      if (result.status === 'busy' || result.unconfirmed === true) {
        reply(res, 503, 'try again later');
      } else if (result.status === 'not_found') {
        reply(res, 404, 'unknown order');
      } else {
        reply(res, 200, 'OK');
      }
    } catch (err) {
      // Gateway unreachable while confirming, or the store failed: nothing durable, so retry.
      ctx.logger.error({ orderId: order.id, err }, 'checkout: notification not settled');
      reply(res, 503, 'try again later');
    }
  });
  return router;
}
