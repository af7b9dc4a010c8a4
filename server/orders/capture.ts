/**
 * Capturing an authorised order, in full or in part. The gateway takes one capture per
 * authorisation, of any amount up to the authorised one; what is not captured is released to the
 * shopper. Its later word of the capture (notification, query) repeats the authorised amount, so
 * the amount requested is written on the order before the capture is sent (`REQUESTED_CAPTURE`):
 * whichever report reaches the order first records what was captured, never the whole amount.
 */
import { z } from 'zod';
import { KitError, ProtocolError, TransportError, ValidationError } from '../errors.js';
import { moneyText } from '../gateway/money.js';
import type { BatchApi } from '../gateway/operations/batch.js';
import type { ReconcileEngine } from './engine-types.js';
import { REQUESTED_CAPTURE, requestedCaptureOf } from './state-machine.js';
import type { OrderStore } from './store.js';
import type { FactSource, Order } from './types.js';

/** Minor units that may still be captured: the authorised amount, while the order is authorised. */
export function capturableOf(order: Pick<Order, 'state' | 'amount' | 'capturedAmount'>): number {
  return order.state === 'authorized' ? Math.max(0, order.amount - order.capturedAmount) : 0;
}

/** What an authorisation captured for less than its amount released to the shopper (0 otherwise). */
export function releasedOf(order: Pick<Order, 'state' | 'amount' | 'capturedAmount'>): number {
  const captured = ['paid', 'partially_refunded', 'refunded', 'chargeback'].includes(order.state) && order.capturedAmount > 0;
  return captured ? Math.max(0, order.amount - order.capturedAmount) : 0;
}

/**
 * Checks a capture amount in minor units: a whole number, more than zero, at most what may be
 * captured. `field` names the input in the error (the admin form's `capture_amount`).
 */
export function checkCaptureAmount(order: Order, amount: number, field = 'amount'): number {
  const parsed = z.number().int().safeParse(amount);
  if (!parsed.success) throw new ValidationError([{ field, message: 'must be a whole number of minor units' }]);
  if (amount <= 0) throw new ValidationError([{ field, message: 'must be more than zero' }]);
  const capturable = capturableOf(order);
  if (amount > capturable) {
    throw new ValidationError([{
      field,
      message: `${moneyText(amount, order.currency)} is more than the ${moneyText(capturable, order.currency)} authorised and not yet captured`,
    }]);
  }
  return amount;
}

/**
 * Writes the amount about to be captured on the authorised order (a `details` event). Throws
 * ERR_ORDER_STATE when the order is no longer authorised: nothing may be sent then.
 */
export async function requestCapture(engine: ReconcileEngine, order: Order, amount: number, source: FactSource, actor: string | undefined): Promise<Order> {
  const result = await engine.apply({
    orderId: order.id, source, ...(actor === undefined ? {} : { actor }), outcome: 'authorized',
    orderData: { [REQUESTED_CAPTURE]: amount }, data: { action: 'capture', phase: 'requested', amount },
  }, { known: order });
  const now = result.order;
  if (now === null || now.state !== 'authorized') {
    throw new KitError('ERR_ORDER_STATE', `The order is ${now?.state ?? 'gone'}, no longer authorised: nothing was captured`, { details: { orderId: order.id } });
  }
  if (result.status === 'rejected' || result.status === 'busy' || requestedCaptureOf(now) !== amount) {
    // Another capture holds the order (sent, or its answer lost): a query sync settles it first.
    throw new KitError('ERR_ORDER_STATE', `A capture for this order is already under way or its outcome is unknown: query sync first. Nothing was sent (${result.reason ?? result.status})`, { details: { orderId: order.id } });
  }
  return now;
}

/** Forgets a requested capture the gateway refused, so a later capture at the gateway counts in full. */
export async function withdrawCaptureRequest(engine: ReconcileEngine, order: Order, source: FactSource, actor: string | undefined): Promise<void> {
  await engine.apply({
    orderId: order.id, source, ...(actor === undefined ? {} : { actor }), outcome: 'authorized',
    orderData: { [REQUESTED_CAPTURE]: null }, data: { action: 'capture', phase: 'refused' },
  });
}

export interface CaptureOptions {
  /** Minor units to capture; default: all that may be captured (the authorised amount). */
  amount?: number;
  /** Who asked, kept on the order's events. */
  actor?: string;
}

export interface CaptureResult {
  /** captured: the gateway accepted; refused: it said no; unknown: no answer (settle by query sync, never re-send). */
  status: 'captured' | 'refused' | 'unknown';
  /** The order after the call. */
  order: Order;
  /** Minor units sent for capture. */
  amount: number;
  /** The gateway's message when it refused, or why the outcome is unknown. */
  message: string | null;
  /** The call's error, when there was one (a lost answer: `outcomeUnknown`). */
  error: KitError | null;
}

export interface CaptureDeps {
  client: { batch: Pick<BatchApi, 'capture'> };
  engine: ReconcileEngine;
  store: OrderStore;
}

/**
 * Captures one authorised order (`kit.orders.capture`). Bad input (ERR_VALIDATION) and an order
 * that is not authorised (ERR_ORDER_STATE, ERR_ORDER_NOT_FOUND) throw before anything is sent.
 */
export async function captureOrder(deps: CaptureDeps, orderId: string, options: CaptureOptions = {}): Promise<CaptureResult> {
  const found = await deps.store.get(orderId);
  if (found === null) throw new KitError('ERR_ORDER_NOT_FOUND', 'No order with this id', { details: { orderId } });
  if (found.state !== 'authorized' || found.transactionId === null) {
    throw new KitError('ERR_ORDER_STATE', `Only an authorised order with a transaction id can be captured; this one is ${found.state}`, { details: { orderId } });
  }
  const amount = checkCaptureAmount(found, options.amount ?? capturableOf(found));
  const order = await requestCapture(deps.engine, found, amount, 'api', options.actor);
  let result;
  try {
    [result] = await deps.client.batch.capture([
      { transaction_id: order.transactionId ?? '', order_no: order.orderNo, currency: order.currency, amount },
    ]);
  } catch (err) {
    // Input the client refused: nothing was sent, so nothing was captured.
    await withdrawCaptureRequest(deps.engine, order, 'api', options.actor);
    throw err;
  }
  const common = { orderId: order.id, source: 'api' as const, ...(options.actor === undefined ? {} : { actor: options.actor }) };
  const error = result?.error ?? null;
  const unknown = result === undefined || (error !== null && isOutcomeUnknown(error));
  // Who asked for what and what the gateway said, whichever report then moves the order.
  await deps.engine.record(order.id, {
    type: 'api_action', source: 'api', actor: options.actor ?? null,
    data: { action: 'capture', amount, result: result?.ok === true ? 'ok' : unknown ? 'unknown' : 'failed', status: result?.status ?? null, message: result?.message ?? null },
  });
  if (result?.ok === true) {
    const applied = await deps.engine.apply({ ...common, outcome: 'approved', capturedAmount: amount, data: { action: 'capture', amount } });
    return { status: 'captured', order: applied.order ?? order, amount, message: null, error: null };
  }
  if (result === undefined || unknown) {
    return { status: 'unknown', order, amount, message: error === null ? 'no answer for the order' : `${error.code}: ${error.message}`, error };
  }
  await withdrawCaptureRequest(deps.engine, order, 'api', options.actor);
  const message = result.message ?? (error === null ? null : `${error.code}: ${error.message}`);
  return { status: 'refused', order: (await deps.store.get(order.id)) ?? order, amount, message, error };
}

/** Transport failures and unreadable replies leave the gateway's action unknown: settle by query, never re-send. */
export function isOutcomeUnknown(error: unknown): boolean {
  return (error instanceof TransportError && error.outcomeUnknown) || error instanceof ProtocolError;
}
