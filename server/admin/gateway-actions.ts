/**
 * The money actions staff take — capture, cancel, review, refund — as one small vocabulary the
 * order page and the batch jobs share: which states allow what, how a request is sent through
 * the client's batch operations, and how the gateway's answer is applied through the engine.
 */
import { randomUUID } from 'node:crypto';
import type { KitError } from '../errors.js';
import type { AdminGatewayClient } from './options.js';
import type { ApplyResult, ReconcileEngine, RefundReport } from '../orders/engine-types.js';
import { isOutcomeUnknown } from '../orders/capture.js';
import { gatewayOrderRef } from '../orders/subscriptions.js';
import { refundableOf } from '../orders/engine-refunds.js';
import type { Refund } from '../orders/refunds.js';
import type { Order, OrderState } from '../orders/types.js';
import type { JobAction } from './store.js';

export const ACTION_LABELS: Record<JobAction, string> = {
  capture: 'Capture',
  cancel: 'Cancel (void)',
  refund: 'Refund (full)',
  review_approve: 'Approve review',
  review_reject: 'Reject review',
};

/** The states each action is offered in. */
export const ACTION_STATES: Record<JobAction, readonly OrderState[]> = {
  capture: ['authorized'],
  cancel: ['authorized', 'in_review'],
  refund: ['paid', 'partially_refunded'],
  review_approve: ['in_review'],
  review_reject: ['in_review'],
};

/** The state a successful action leads to (approve: paid or authorised, decided by a query). */
const GOAL_STATES: Record<JobAction, readonly OrderState[]> = {
  capture: ['paid', 'partially_refunded', 'refunded'],
  cancel: ['cancelled'],
  refund: ['refunded'],
  review_approve: ['authorized', 'paid'],
  review_reject: ['cancelled', 'declined'],
};

/** Minor units still refundable: what was captured less succeeded and pending refunds. */
export { refundableOf };

/**
 * Null when `action` may be sent for `order`; otherwise why not, in words for staff. `refunds`:
 * the order's refund rows, for a refund (what is pending counts as spent).
 */
export function ineligibleReason(order: Order, action: JobAction, refunds: readonly Refund[] = []): string | null {
  if (!ACTION_STATES[action].includes(order.state)) {
    return `not sent: ${ACTION_LABELS[action].toLowerCase()} is not possible in state ${order.state.replace(/_/g, ' ')}`;
  }
  if (order.transactionId === null) return 'not sent: the order has no gateway transaction id';
  if (action === 'refund' && refundableOf(order, refunds) === 0) return 'not sent: nothing left to refund';
  return null;
}

/**
 * Writes the pending refund row staff are about to send, by compare-and-set, so refunds sent at
 * once can never add up to more than remains (pending ones count). Returns the row's id, or why
 * it was refused. The gateway's answer later settles this same row (`applyOutcome`).
 */
export async function reserveRefund(engine: ReconcileEngine, order: Order, amount: number, actor: string, data: Record<string, unknown> = {}): Promise<{ id: string } | { refused: string }> {
  const id = randomUUID();
  const result = await engine.apply({
    orderId: order.id, source: 'admin', actor, outcome: 'unknown', data: { action: 'refund', phase: 'reserved', ...data },
    refunds: [{ id, amount, status: 'pending' }],
  });
  if (result.status === 'applied' || result.status === 'noop') return { id };
  return { refused: result.reason ?? result.status };
}

export function reachedGoal(order: Order, action: JobAction): boolean {
  return GOAL_STATES[action].includes(order.state);
}

export interface ActionRequest {
  order: Order;
  /** Capture only: minor units to capture (default the order amount), as `requestCapture` wrote it. */
  captureAmount?: number;
  /** Refund only: minor units, as reserved by `reserveRefund`. */
  refundAmount?: number;
  /** Refund only: the pending ledger row `reserveRefund` wrote for this refund. */
  refundId?: string;
  refundReason?: string;
}

export interface ActionOutcome {
  request: ActionRequest;
  ok: boolean;
  /** The element's status, or null when no answer for the order came back. */
  status: string | null;
  message: string | null;
  /** True when the gateway may have acted but no answer came back: settle by query, never re-send. */
  outcomeUnknown: boolean;
  refundAmount: number | null;
  refundReferenceId: string | null;
  refundReference: string | null;
}

/** Transport failures and unreadable replies leave the gateway's action unknown. */
export { isOutcomeUnknown };

function base(order: Order): { transaction_id: string; order_no: string; currency: string; amount: number } {
  // A deduction is known to the gateway by its first payment's order number (and its own transaction id).
  return { transaction_id: order.transactionId ?? '', order_no: gatewayOrderRef(order.orderNo).orderNo, currency: order.currency, amount: order.amount };
}

function errorText(error: KitError | null): string | null {
  if (error === null) return null;
  return isOutcomeUnknown(error)
    ? `no answer from the gateway (${error.code}): the outcome is unknown; use query sync, the action was not re-sent`
    : error.message; // ends in the code's [ERR_…: docs/errors.md#…], which the views set apart
}

/**
 * Sends one action for many orders in one client call (the client splits it to the gateway's
 * per-request limits). Returns one outcome per request, in order. Input the client refuses
 * (ValidationError) is thrown: nothing was sent.
 */
export async function sendAction(client: AdminGatewayClient, action: JobAction, requests: readonly ActionRequest[]): Promise<ActionOutcome[]> {
  if (requests.length === 0) return [];
  const shape = <E>(results: { ok: boolean; status: string | null; message: string | null; error: KitError | null; element: E | null }[],
    extra: (e: E | null, i: number) => Partial<ActionOutcome> = () => ({})): ActionOutcome[] =>
    results.map((r, i) => ({
      request: requests[i] as ActionRequest,
      ok: r.ok,
      status: r.status,
      message: r.message ?? errorText(r.error),
      outcomeUnknown: !r.ok && r.error !== null && isOutcomeUnknown(r.error),
      refundAmount: null,
      refundReferenceId: null,
      refundReference: null,
      ...extra(r.element, i),
    }));
  switch (action) {
    case 'capture':
      return shape(await client.batch.capture(requests.map((r) => ({ ...base(r.order), amount: r.captureAmount ?? r.order.amount }))));
    case 'cancel':
      return shape(await client.batch.cancel(requests.map((r) => base(r.order))));
    case 'review_approve':
    case 'review_reject': {
      const flag = action === 'review_approve' ? '1' : '0';
      return shape(await client.batch.review(requests.map((r) => ({ ...base(r.order), review_flag: flag }))));
    }
    case 'refund': {
      const amounts = requests.map((r) => r.refundAmount ?? 0);
      const results = await client.batch.refund(requests.map((r, i) => ({
        ...base(r.order),
        refund_amount: amounts[i] ?? 0,
        ...(r.refundReason ? { refund_reason: r.refundReason } : {}),
      })));
      return shape(results, (e, i) => ({
        refundAmount: amounts[i] ?? null,
        refundReferenceId: e?.refund_reference_id ?? null,
        refundReference: e?.refund_reference ?? null,
      }));
    }
  }
}

/** Card-free details of an action for the order's `admin_action` event. */
export function actionEventData(action: JobAction, outcome: ActionOutcome, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    action,
    result: outcome.ok ? 'ok' : outcome.outcomeUnknown ? 'unknown' : 'failed',
    status: outcome.status,
    message: outcome.message,
    ...(outcome.refundAmount !== null ? { refundAmount: outcome.refundAmount } : {}),
    ...(outcome.refundReferenceId !== null ? { refundReferenceId: outcome.refundReferenceId } : {}),
    ...(outcome.refundReference !== null ? { refundReference: outcome.refundReference } : {}),
    ...extra,
  };
}

/**
 * Applies an action's answer through the engine. Capture → approved with the amount captured;
 * cancel and review reject → cancelled; refund → the answer settles the refund's pending ledger
 * row (succeeded with the gateway's reference, or failed when refused), and the engine derives
 * the refunded amount from the ledger; review approve → query sync, because only the gateway
 * knows whether the approved payment is authorised or paid. Capture, cancel and review are
 * applied only when `outcome.ok`; a refund's refusal is applied too (its row fails).
 */
export async function applyOutcome(
  engine: ReconcileEngine,
  order: Order,
  action: JobAction,
  outcome: ActionOutcome,
  actor: string,
  extra: { dedupeKey?: string; data?: Record<string, unknown> } = {},
): Promise<ApplyResult> {
  const common = { orderId: order.id, source: 'admin' as const, actor, data: { action, ...extra.data } };
  const dedupe = extra.dedupeKey === undefined ? {} : { dedupeKey: extra.dedupeKey };
  switch (action) {
    case 'capture':
      return engine.apply({ ...common, ...dedupe, outcome: 'approved', capturedAmount: outcome.request.captureAmount ?? order.amount });
    case 'cancel':
    case 'review_reject':
      return engine.apply({ ...common, ...dedupe, outcome: 'cancelled' });
    case 'review_approve':
      return engine.confirm(order.id, 'admin', actor);
    case 'refund': {
      // No dedupe key: the ledger row is the idempotence. The gateway's notification of this
      // refund carries the same reference, so whichever arrives second changes nothing.
      const id = outcome.request.refundId;
      const amount = outcome.refundAmount ?? outcome.request.refundAmount ?? 0;
      const report: RefundReport = outcome.ok
        ? { ...(id === undefined ? {} : { id }), referenceId: outcome.refundReferenceId, reference: outcome.refundReference, amount, status: 'succeeded' }
        : { ...(id === undefined ? {} : { id }), amount, status: 'failed' };
      return engine.apply({ ...common, outcome: 'unknown', refunds: [report] });
    }
  }
}
