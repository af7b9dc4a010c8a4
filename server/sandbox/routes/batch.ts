/**
 * POST /v1/capture, /v1/cancel and /v1/review: JSON batch envelopes, each element answered on
 * its own with a status (`1`/`0`) and an error_message (empty on success). Each change notifies.
 */
import type { SandboxContext } from '../context.js';
import { jsonReply, type Reply } from '../http.js';
import { approve, notify, setStatus, STATUS } from '../payments.js';
import type { SandboxAccount, SandboxTransaction } from '../types.js';
import { amountOf, authenticate, validate } from '../validate.js';
import { ELEMENT_STATUS, LIMITS, PAYMENT_STATUS, RESULT_INFO, type NotificationType } from '../wire/codes.js';
import { cancelRequest, captureRequest, reviewRequest } from '../wire/other-requests.js';
import { assertWithinLimit, CAPTURED_STATUSES, describe, envelope, lookUp, type ElementRef } from './batch-common.js';

type Outcome = { error: string } | { tx: SandboxTransaction; type: NotificationType };

const fail = (error: string): Outcome => ({ error });

function capture(ctx: SandboxContext, account: SandboxAccount, element: ElementRef & { amount: string }): Outcome {
  const tx = lookUp(ctx, account, element);
  if (typeof tx === 'string') return fail(tx);
  if (CAPTURED_STATUSES.includes(tx.paymentStatus)) return fail('Transaction is already captured');
  if (tx.paymentStatus !== PAYMENT_STATUS.authorized) return fail(`Cannot capture a transaction that is ${describe(tx)}`);
  let amount: number;
  try {
    amount = amountOf(element.amount, tx.currency, 'amount');
  } catch {
    return fail('amount is not a valid amount for the currency');
  }
  if (amount <= 0 || amount > tx.amount) return fail('amount must be more than zero and at most the authorised amount');
  tx.capturedAmount = amount;
  setStatus(tx, STATUS.captured, amount === tx.amount ? 'captured' : `captured ${element.amount} of the authorisation`);
  return { tx, type: 'capture' };
}

const CANCELLABLE: readonly string[] = [PAYMENT_STATUS.authorized, PAYMENT_STATUS.inReview, PAYMENT_STATUS.requiresAction, PAYMENT_STATUS.pending];

function cancel(ctx: SandboxContext, account: SandboxAccount, element: ElementRef): Outcome {
  const tx = lookUp(ctx, account, element);
  if (typeof tx === 'string') return fail(tx);
  if (CAPTURED_STATUSES.includes(tx.paymentStatus)) return fail('Transaction is already captured; refund it instead');
  if (!CANCELLABLE.includes(tx.paymentStatus)) return fail(`Cannot cancel a transaction that is ${describe(tx)}`);
  setStatus(tx, STATUS.cancelled(RESULT_INFO.cancelled), 'cancelled');
  tx.pending = null;
  return { tx, type: 'cancel' };
}

function review(ctx: SandboxContext, account: SandboxAccount, element: ElementRef & { review_flag: string }): Outcome {
  const tx = lookUp(ctx, account, element);
  if (typeof tx === 'string') return fail(tx);
  if (element.review_flag !== '1' && element.review_flag !== '0') return fail('review_flag must be 1 (approve) or 0 (reject)');
  if (tx.paymentStatus !== PAYMENT_STATUS.inReview) return fail(`Cannot review a transaction that is ${describe(tx)}`);
  if (element.review_flag === '1') {
    approve(ctx, tx, account, 'review approved');
  } else {
    tx.riskAction = 'REJECT';
    setStatus(tx, STATUS.cancelled(RESULT_INFO.reviewRejected), 'review rejected');
    tx.pending = null;
  }
  return { tx, type: 'review' };
}

/** Runs each element in order (so a repeated element sees the first one's effect). */
function runBatch<E extends ElementRef>(
  ctx: SandboxContext,
  elements: readonly E[],
  apply: (element: E) => Outcome,
  statusField: string,
): Record<string, unknown>[] {
  const changed: { tx: SandboxTransaction; type: NotificationType }[] = [];
  return ctx.ledger.database.atomically(() => {
    const results = elements.map((element) => {
      const outcome = apply(element);
      if ('tx' in outcome) {
        ctx.ledger.updateTransaction(outcome.tx);
        changed.push(outcome);
      }
      // Object.assign, not a spread: properties added after a spread are slow in V8.
      const result: Record<string, unknown> = {};
      Object.assign(result, element);
      result[statusField] = 'tx' in outcome ? ELEMENT_STATUS.ok : ELEMENT_STATUS.failed;
      result.error_message = 'tx' in outcome ? '' : outcome.error;
      return result;
    });
    // Recorded in the same commit as the changes (one commit per batch); sending starts after it.
    for (const { tx, type } of changed) notify(ctx, tx, type);
    return results;
  });
}

export function handleCapture(ctx: SandboxContext, fields: Record<string, unknown>): Reply {
  const account = authenticate(ctx, 'capture', fields);
  assertWithinLimit(fields, 'capture_orders', LIMITS.capture);
  const request = validate(captureRequest, fields);
  const results = runBatch(ctx, request.capture_orders, (e) => capture(ctx, account, e), 'capture_status');
  return jsonReply(envelope(fields, 'capture_orders', results));
}

export function handleCancel(ctx: SandboxContext, fields: Record<string, unknown>): Reply {
  const account = authenticate(ctx, 'cancel', fields);
  assertWithinLimit(fields, 'cancel_orders', LIMITS.cancel);
  const request = validate(cancelRequest, fields);
  const results = runBatch(ctx, request.cancel_orders, (e) => cancel(ctx, account, e), 'cancel_status');
  return jsonReply(envelope(fields, 'cancel_orders', results));
}

export function handleReview(ctx: SandboxContext, fields: Record<string, unknown>): Reply {
  const account = authenticate(ctx, 'review', fields);
  assertWithinLimit(fields, 'review_orders', LIMITS.review);
  const request = validate(reviewRequest, fields);
  const results = runBatch(ctx, request.review_orders, (e) => review(ctx, account, e), 'review_status');
  return jsonReply(envelope(fields, 'review_orders', results));
}
