/**
 * What the pay route does with the gateway's answer, or with its absence. Every outcome goes
 * through the reconcile engine. Rules:
 * - a timeout or lost connection means the outcome is unknown: the order becomes `pending` and
 *   is settled by query (never re-sent);
 * - the order becomes `failed` only when the gateway surely refused (HTTP 400/404 or an I00xx
 *   code): nothing was charged;
 * - an unreadable or unverifiable answer is `pending` plus an attention flag for staff.
 * The gateway's details (result code and text…) and any attention flag travel on the fact, so
 * the engine stores them with the state in one compare-and-set and fires `onAttention`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError, isKitError, TransportError } from '../errors.js';
import type { ApplyResult, PaymentFact } from '../orders/engine-types.js';
import type { Order } from '../orders/types.js';
import type { KitContext } from './context.js';

type PayFact = Omit<PaymentFact, 'source' | 'orderId'>;

/** Applies a fact from the pay route, retrying a few times while another process holds the lease. */
export async function applyPayFact(ctx: KitContext, order: Order, fact: PayFact): Promise<ApplyResult> {
  let result: ApplyResult | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    result = await ctx.engine.apply({ ...fact, orderId: order.id, source: 'pay', actor: 'shopper' });
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
