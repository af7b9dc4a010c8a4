/**
 * The pay route's durable steps, all through the reconcile engine: finding the order from the
 * signed pay token, submitting it (created → pending) exactly once before anything is sent, and
 * applying what the gateway answered — or the absence of an answer. Rules for the answer:
 * - a timeout or lost connection means the outcome is unknown: the order becomes `pending` and
 *   is settled by query (never re-sent);
 * - the order becomes `failed` only when the gateway surely refused (HTTP 400/404 or an I00xx
 *   code): nothing was charged;
 * - an unreadable or unverifiable answer is `pending` plus an attention flag for staff.
 * The gateway's details (result code and text…) and any attention flag travel on the fact, so
 * the engine stores them with the state in one compare-and-set and fires `onAttention`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request, Response } from 'express';
import { GatewayError, isKitError, TransportError } from '../../errors.js';
import type { ApplyResult, PaymentFact } from '../../orders/engine-types.js';
import type { Order, PaymentMethodKind } from '../../orders/types.js';
import { merged } from '../../objects.js';
import type { KitContext } from '../context.js';
import type { PayPages } from '../render-pages.js';
import { useOrderLocale } from '../render.js';

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

type PayFact = Omit<PaymentFact, 'source' | 'orderId'>;

/**
 * Applies a fact from the pay route, retrying a few times while another process holds the lease.
 * `order` is the copy the submission stored: the engine plans from it instead of reading the order
 * again (a change made meanwhile, say by a notification, is caught by the compare-and-set).
 */
export async function applyPayFact(ctx: KitContext, order: Order, fact: PayFact): Promise<ApplyResult> {
  let result: ApplyResult | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    result = await ctx.engine.apply(merged(fact, { orderId: order.id, source: 'pay' as const, actor: 'shopper' }), { known: order });
    if (result.status !== 'busy') break;
    await sleep(250 * (attempt + 1));
  }
  const final = result as ApplyResult;
  const log = { orderId: order.id, orderNo: order.orderNo, outcome: fact.outcome, status: final.status, state: final.order?.state };
  if (final.status === 'busy' || final.status === 'rejected' || final.status === 'mismatch') {
    ctx.logger.warn({ ...log, reason: final.reason }, 'Pay result not applied');
  } else {
    ctx.logger.info(log, 'Pay result applied');
  }
  return final;
}

/** True when the gateway answered and certainly did not take the payment. */
export function surelyRefused(error: unknown): error is GatewayError {
  if (!(error instanceof GatewayError)) return false;
  const status = error.httpStatus;
  return status === 400 || status === 404 || /^I\d{4}$/.test(error.gatewayCode ?? '');
}

export type PayFailure =
  | { kind: 'unknown'; attention: string | null }
  | { kind: 'refused'; code: string; text: string };

/** Classifies an error thrown while asking the gateway to take the payment. */
export function classifyPayError(error: unknown): PayFailure {
  if (error instanceof TransportError) return { kind: 'unknown', attention: null };
  if (error instanceof GatewayError && !surelyRefused(error)) return { kind: 'unknown', attention: null };
  if (surelyRefused(error)) {
    const text = typeof error.details.gatewayMessage === 'string' ? error.details.gatewayMessage : error.code;
    return { kind: 'refused', code: error.gatewayCode ?? `HTTP ${String(error.httpStatus)}`, text: text.slice(0, 200) };
  }
  if (isKitError(error)) {
    return { kind: 'unknown', attention: `The gateway's answer to the payment could not be trusted (${error.code}): check the payment at the gateway.` };
  }
  return { kind: 'unknown', attention: 'The payment request ended with an unexpected error: check the payment at the gateway.' };
}
