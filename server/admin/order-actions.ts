/**
 * One staff action on one order, from the order page: check the state allows it, send it, record
 * the `admin_action` event with the staff id as actor, apply the result through the engine, and
 * say what happened in one sentence. A lost answer is reported as unknown and never re-sent.
 */
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { parseWireAmount } from '../gateway/money.js';
import { capturableOf, checkCaptureAmount, requestCapture, withdrawCaptureRequest } from '../orders/capture.js';
import type { Refund } from '../orders/refunds.js';
import type { Order } from '../orders/types.js';
import type { Flash } from './flash.js';
import { formatMoney } from './format.js';
import {
  ACTION_LABELS, actionEventData, applyOutcome, ineligibleReason, refundableOf, reserveRefund, sendAction,
} from './gateway-actions.js';
import type { ActionRequest } from './gateway-actions.js';
import type { AdminKit, Staff } from './options.js';
import type { JobAction } from './store.js';

export interface RefundParams {
  /** The staff's input, a decimal string in the order's currency ("12.50"). */
  amountText: string;
  reason: string;
}

/** What the order page's forms send besides the action: the refund's fields, the capture amount. */
export interface ActionParams extends Partial<RefundParams> {
  /** The capture form's amount, a decimal string in the order's currency; empty → all that may be captured. */
  captureAmountText?: string;
}

/** The capture form's field at the edge: a decimal text, at most 30 characters. */
const captureFieldSchema = z.string().trim().max(30, 'must be at most 30 characters');

/**
 * Parses and bounds a capture amount typed by staff: more than 0 and never more than the
 * authorised amount not yet captured. Empty means all of it.
 */
export function parseCaptureAmount(order: Order, text: string): number {
  const checked = captureFieldSchema.safeParse(text);
  if (!checked.success) throw new ValidationError([{ field: 'capture_amount', message: checked.error.issues[0]?.message ?? 'is invalid' }]);
  if (checked.data === '') return checkCaptureAmount(order, capturableOf(order), 'capture_amount');
  const minor = parseWireAmount(checked.data, order.currency, 'capture_amount');
  return checkCaptureAmount(order, minor, 'capture_amount');
}

/** Parses and bounds a refund amount: more than 0 and never more than remains (pending refunds count). */
export function parseRefundAmount(order: Order, text: string, refunds: readonly Refund[] = []): number {
  const trimmed = text.trim();
  if (trimmed === '') throw new ValidationError([{ field: 'refund_amount', message: 'is required' }]);
  const minor = parseWireAmount(trimmed, order.currency, 'refund_amount');
  if (minor <= 0) throw new ValidationError([{ field: 'refund_amount', message: 'must be more than zero' }]);
  const remaining = refundableOf(order, refunds);
  if (minor > remaining) {
    throw new ValidationError([{
      field: 'refund_amount',
      message: `${formatMoney(minor, order.currency)} is more than the ${formatMoney(remaining, order.currency)} that remains refundable`,
    }]);
  }
  return minor;
}

export function parseRefundReason(text: string): string {
  const reason = text.trim();
  if (reason.length > 50) throw new ValidationError([{ field: 'refund_reason', message: 'must be at most 50 characters' }]);
  return reason;
}

/** Raised for an action the order's state does not allow: nothing was sent. */
export class ActionNotAllowedError extends Error {}

/**
 * Runs the action. Validation problems throw (ValidationError → 400, ActionNotAllowedError →
 * 409) before anything is sent; everything after the gateway call is reported in the Flash.
 */
export async function runOrderAction(
  kit: AdminKit,
  staff: Staff,
  order: Order,
  action: JobAction,
  params: ActionParams = {},
): Promise<Flash> {
  const refunds = action === 'refund' ? await kit.store.listRefunds(order.id) : [];
  const why = ineligibleReason(order, action, refunds);
  if (why !== null) throw new ActionNotAllowedError(why.replace(/^not sent: /, ''));
  const request: ActionRequest = { order };
  if (action === 'capture') {
    request.captureAmount = parseCaptureAmount(order, params.captureAmountText ?? '');
    // Written on the order before sending: the gateway's own report of the capture repeats the
    // authorised amount, and whichever report arrives first must record this amount.
    try {
      request.order = await requestCapture(kit.engine, order, request.captureAmount, 'admin', staff.id);
    } catch (err) {
      if (err instanceof Error && 'code' in err && err.code === 'ERR_ORDER_STATE') throw new ActionNotAllowedError(err.message);
      throw err;
    }
  }
  if (action === 'refund') {
    request.refundAmount = parseRefundAmount(order, params.amountText ?? '', refunds);
    const reason = parseRefundReason(params.reason ?? '');
    if (reason !== '') request.refundReason = reason;
    // The pending row first, by compare-and-set: refunds sent at once never exceed what remains.
    const reserved = await reserveRefund(kit.engine, order, request.refundAmount, staff.id);
    if ('refused' in reserved) {
      throw new ValidationError([{ field: 'refund_amount', message: `not sent: ${reserved.refused} (another refund may have been started meanwhile)` }]);
    }
    request.refundId = reserved.id;
  }

  let outcome;
  try {
    [outcome] = await sendAction(kit.client, action, [request]);
  } catch (err) {
    // Input the client refused: nothing was sent, so the requested capture is withdrawn.
    if (action === 'capture') await withdrawCaptureRequest(kit.engine, order, 'admin', staff.id).catch(() => undefined);
    throw err;
  }
  if (outcome === undefined) return { kind: 'error', text: 'The gateway call returned nothing.' };
  await kit.engine.record(order.id, { type: 'admin_action', source: 'admin', actor: staff.id, data: actionEventData(action, outcome) });

  const label = ACTION_LABELS[action].replace(/ \(.*\)$/, '');
  if (outcome.outcomeUnknown) {
    const pending = action === 'refund' ? ' The refund stays pending (it counts against what remains refundable) until the sweeper finds it in the gateway\'s refund search, or fails it.' : '';
    return {
      kind: 'warning',
      text: `${label}: the gateway did not answer, so the outcome is unknown. Nothing was re-sent.${pending} Use "Query sync" to learn what happened before trying again.`,
    };
  }
  if (!outcome.ok) {
    // The refused refund's pending row fails, freeing the amount it held.
    if (action === 'refund') await applyOutcome(kit.engine, order, action, outcome, staff.id).catch(() => undefined);
    // A refused capture captured nothing: its requested amount must not count for a later one.
    if (action === 'capture') await withdrawCaptureRequest(kit.engine, order, 'admin', staff.id).catch(() => undefined);
    return { kind: 'error', text: `${label} refused by the gateway: ${outcome.message ?? 'no reason given'}.` };
  }

  let state = order.state as string;
  try {
    const applied = await applyOutcome(kit.engine, order, action, outcome, staff.id);
    state = applied.order?.state ?? state;
    if (!['applied', 'noop', 'duplicate'].includes(applied.status)) {
      return { kind: 'warning', text: `${label} accepted by the gateway, but the order was not updated (${applied.status}${applied.reason ? `: ${applied.reason}` : ''}). Use "Query sync".` };
    }
  } catch {
    return { kind: 'warning', text: `${label} accepted by the gateway, but recording the new state failed. Use "Query sync".` };
  }
  const what = action === 'refund' && outcome.refundAmount !== null
    ? `Refunded ${formatMoney(outcome.refundAmount, order.currency)}${outcome.refundReferenceId ? ` (${outcome.refundReferenceId})` : ''}`
    : action === 'capture' && request.captureAmount !== undefined && request.captureAmount < order.amount
      ? `${label} accepted by the gateway: ${formatMoney(request.captureAmount, order.currency)} captured, the other ${formatMoney(order.amount - request.captureAmount, order.currency)} of the authorisation released`
      : `${label} accepted by the gateway`;
  return { kind: 'ok', text: `${what}. The order is now ${state.replace(/_/g, ' ')}.` };
}

/** Query sync: asks the gateway for the order's state and applies it (engine.confirm). */
export async function syncOrder(kit: AdminKit, staff: Staff, order: Order): Promise<Flash> {
  try {
    const result = await kit.engine.confirm(order.id, 'admin', staff.id);
    const state = (result.order?.state ?? order.state).replace(/_/g, ' ');
    await kit.engine.record(order.id, {
      type: 'admin_action',
      source: 'admin',
      actor: staff.id,
      data: { action: 'sync', result: result.status, state: result.order?.state ?? order.state, unconfirmed: result.unconfirmed === true },
    });
    if (result.unconfirmed === true) return { kind: 'warning', text: 'The gateway does not know this order yet; nothing changed.' };
    if (result.status === 'applied') return { kind: 'ok', text: `Synced with the gateway: the order is now ${state}.` };
    if (result.status === 'busy') return { kind: 'warning', text: 'The order is being updated elsewhere; try again in a moment.' };
    return { kind: 'ok', text: `Synced with the gateway: no change, the order is ${state}.` };
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? String((err as { code: unknown }).code) : 'error';
    return { kind: 'error', text: `Query sync failed (${code}); nothing changed. Try again later.` };
  }
}
