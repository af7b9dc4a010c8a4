/**
 * Capture, cancel, review and refund: batch operations over any number of orders, split to the
 * gateway's limits (50, 50, 100, 50). Amounts are minor units in, decimal strings on the wire.
 */
import { z } from 'zod';
import type { CallOptions } from '../core.js';
import { toWireAmount } from '../money.js';
import {
  BATCH_LIMITS, cancelRequestSchema, cancelResponseSchema, captureRequestSchema, captureResponseSchema,
  refundRequestSchema, refundResponseSchema, reviewRequestSchema, reviewResponseSchema,
  type CancelResultElement, type CaptureResultElement, type RefundResultElement, type ReviewResultElement,
} from '../schemas/batch.js';
import { currency, orderNo, text, transactionId } from '../schemas/common.js';
import { runBatch, type BatchItemResult, type BatchSpec } from './batch-runner.js';
import { minorUnits } from './payment-inputs.js';

export interface BatchOrderInput {
  transaction_id: string;
  order_no: string;
  currency: string;
  /** The transaction's amount, minor units. */
  amount: number;
}
export type CaptureOrderInput = BatchOrderInput;
export type CancelOrderInput = BatchOrderInput;
export interface ReviewOrderInput extends BatchOrderInput {
  /** "1" is the observed value. */
  review_flag: string;
}
export interface RefundOrderInput extends BatchOrderInput {
  /** Minor units to refund. */
  refund_amount: number;
  refund_reason?: string;
}

export interface BatchApi {
  capture(orders: CaptureOrderInput[], options?: CallOptions): Promise<BatchItemResult<CaptureResultElement, CaptureOrderInput>[]>;
  cancel(orders: CancelOrderInput[], options?: CallOptions): Promise<BatchItemResult<CancelResultElement, CancelOrderInput>[]>;
  review(orders: ReviewOrderInput[], options?: CallOptions): Promise<BatchItemResult<ReviewResultElement, ReviewOrderInput>[]>;
  refund(orders: RefundOrderInput[], options?: CallOptions): Promise<BatchItemResult<RefundResultElement, RefundOrderInput>[]>;
}

const orderFields = { transaction_id: transactionId, order_no: orderNo, currency, amount: minorUnits };
const baseInput = z.strictObject(orderFields);
const reviewInput = z.strictObject({ ...orderFields, review_flag: text(10).min(1) });
const refundInput = z.strictObject({ ...orderFields, refund_amount: minorUnits.min(1), refund_reason: text(50).optional() });

const baseWire = (o: BatchOrderInput, field: string): Record<string, unknown> => ({
  transaction_id: o.transaction_id,
  order_no: o.order_no,
  currency: o.currency,
  amount: toWireAmount(o.amount, o.currency, `${field}.amount`),
});

const common = {
  transactionIdOf: (o: BatchOrderInput) => o.transaction_id,
  orderNoOf: (o: BatchOrderInput) => o.order_no,
};

const captureSpec: BatchSpec<CaptureOrderInput, CaptureResultElement> = {
  ...common,
  operation: 'capture',
  arrayKey: 'capture_orders',
  limit: BATCH_LIMITS.capture,
  inputSchema: baseInput,
  toWire: baseWire,
  requestSchema: captureRequestSchema,
  responseSchema: captureResponseSchema,
  elementsOf: (reply) => (reply as z.infer<typeof captureResponseSchema>).capture_orders,
  statusOf: (e) => e.capture_status,
  messageOf: (e) => e.error_message,
};

const cancelSpec: BatchSpec<CancelOrderInput, CancelResultElement> = {
  ...common,
  operation: 'cancel',
  arrayKey: 'cancel_orders',
  limit: BATCH_LIMITS.cancel,
  inputSchema: baseInput,
  toWire: baseWire,
  requestSchema: cancelRequestSchema,
  responseSchema: cancelResponseSchema,
  elementsOf: (reply) => (reply as z.infer<typeof cancelResponseSchema>).cancel_orders,
  statusOf: (e) => e.cancel_status,
  messageOf: (e) => e.error_message,
};

const reviewSpec: BatchSpec<ReviewOrderInput, ReviewResultElement> = {
  ...common,
  operation: 'review',
  arrayKey: 'review_orders',
  limit: BATCH_LIMITS.review,
  inputSchema: reviewInput,
  toWire: (o, field) => ({ ...baseWire(o, field), review_flag: o.review_flag }),
  requestSchema: reviewRequestSchema,
  responseSchema: reviewResponseSchema,
  elementsOf: (reply) => (reply as z.infer<typeof reviewResponseSchema>).review_orders,
  statusOf: (e) => e.review_status,
  messageOf: (e) => e.error_message,
};

const refundSpec: BatchSpec<RefundOrderInput, RefundResultElement> = {
  ...common,
  operation: 'refund',
  arrayKey: 'refund_orders',
  limit: BATCH_LIMITS.refund,
  inputSchema: refundInput,
  toWire: (o, field) => ({
    ...baseWire(o, field),
    refund_amount: toWireAmount(o.refund_amount, o.currency, `${field}.refund_amount`),
    ...(o.refund_reason === undefined ? {} : { refund_reason: o.refund_reason }),
  }),
  requestSchema: refundRequestSchema,
  responseSchema: refundResponseSchema,
  elementsOf: (reply) => (reply as z.infer<typeof refundResponseSchema>).refund_orders,
  statusOf: (e) => e.refund_status,
  messageOf: (e) => e.refund_message,
};

export function createBatchApi(ctx: Parameters<typeof runBatch>[0]): BatchApi {
  return {
    capture: (orders, options) => runBatch(ctx, captureSpec, orders, options),
    cancel: (orders, options) => runBatch(ctx, cancelSpec, orders, options),
    review: (orders, options) => runBatch(ctx, reviewSpec, orders, options),
    refund: (orders, options) => runBatch(ctx, refundSpec, orders, options),
  };
}
