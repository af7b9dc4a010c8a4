/**
 * Batch envelopes: capture, cancel, review and refund (and updateOrders). A request carries the
 * identity, the signature and one order array; the reply echoes the signature and reports every
 * element with its own status.
 */
import { z } from 'zod';
import {
  codeText, currency, orderNo, replyEnvelope, requestIdentity, statusCode, text, transactionId, wireAmount,
} from './common.js';

/** Most elements one request may carry, per operation (interface "Limits"). */
export const BATCH_LIMITS = {
  capture: 50,
  cancel: 50,
  refund: 50,
  review: 100,
  retrievalTrans: 100,
  retrievalRefund: 100,
  updateOrders: 50,
} as const;

const elementFields = { transaction_id: transactionId, order_no: orderNo, currency, amount: wireAmount };

/** Reply elements are read leniently: the element's own status decides, not its formatting. */
const replyElementFields = {
  transaction_id: z.string().max(50).optional(),
  order_no: z.string().max(50).optional(),
  currency: z.string().max(3).optional(),
  amount: z.string().max(20).optional(),
  error_message: z.string().max(1000).optional(),
};

export const captureOrderSchema = z.object(elementFields);
export const captureRequestSchema = z.object({
  ...requestIdentity,
  capture_orders: z.array(captureOrderSchema).min(1).max(BATCH_LIMITS.capture),
});
export type CaptureRequest = z.infer<typeof captureRequestSchema>;
export const captureResultSchema = z.object({ ...replyElementFields, capture_status: statusCode.optional() });
export type CaptureResultElement = z.infer<typeof captureResultSchema>;
export const captureResponseSchema = z.object({
  ...replyEnvelope,
  capture_orders: z.array(captureResultSchema).optional(),
});
export type CaptureResponse = z.infer<typeof captureResponseSchema>;

export const cancelOrderSchema = z.object(elementFields);
export const cancelRequestSchema = z.object({
  ...requestIdentity,
  cancel_orders: z.array(cancelOrderSchema).min(1).max(BATCH_LIMITS.cancel),
});
export type CancelRequest = z.infer<typeof cancelRequestSchema>;
export const cancelResultSchema = z.object({ ...replyElementFields, cancel_status: statusCode.optional() });
export type CancelResultElement = z.infer<typeof cancelResultSchema>;
export const cancelResponseSchema = z.object({
  ...replyEnvelope,
  cancel_orders: z.array(cancelResultSchema).optional(),
});
export type CancelResponse = z.infer<typeof cancelResponseSchema>;

export const reviewOrderSchema = z.object({ ...elementFields, review_flag: text(10).min(1) });
export const reviewRequestSchema = z.object({
  ...requestIdentity,
  review_orders: z.array(reviewOrderSchema).min(1).max(BATCH_LIMITS.review),
});
export type ReviewRequest = z.infer<typeof reviewRequestSchema>;
export const reviewResultSchema = z.object({
  ...replyElementFields,
  review_flag: z.string().max(10).optional(),
  review_status: statusCode.optional(),
});
export type ReviewResultElement = z.infer<typeof reviewResultSchema>;
export const reviewResponseSchema = z.object({
  ...replyEnvelope,
  review_orders: z.array(reviewResultSchema).optional(),
});
export type ReviewResponse = z.infer<typeof reviewResponseSchema>;

export const refundOrderSchema = z.object({
  ...elementFields,
  refund_amount: wireAmount,
  refund_reason: text(50).optional(),
});
export const refundRequestSchema = z.object({
  ...requestIdentity,
  refund_orders: z.array(refundOrderSchema).min(1).max(BATCH_LIMITS.refund),
});
export type RefundRequest = z.infer<typeof refundRequestSchema>;
export const refundResultSchema = z.object({
  ...replyElementFields,
  refund_amount: z.string().max(20).optional(),
  refund_reason: z.string().max(200).optional(),
  refund_message: codeText.optional(),
  refund_reference: z.string().max(50).optional(),
  refund_reference_id: z.string().max(60).optional(),
  refund_status: statusCode.optional(),
});
export type RefundResultElement = z.infer<typeof refundResultSchema>;
export const refundResponseSchema = z.object({
  ...replyEnvelope,
  refund_orders: z.array(refundResultSchema).optional(),
});
export type RefundResponse = z.infer<typeof refundResponseSchema>;

/** Feeds outcomes back to the gateway's risk engine (some versions of the interface). */
export const updateOrderSchema = z.object({
  transaction_id: transactionId,
  status: text(20).min(1),
  ispass3d: text(10).min(1),
});
export const updateOrdersRequestSchema = z.object({
  ...requestIdentity,
  update_orders: z.array(updateOrderSchema).min(1).max(BATCH_LIMITS.updateOrders),
});
export type UpdateOrdersRequest = z.infer<typeof updateOrdersRequestSchema>;
/** Reply shape not published: assumed to follow the other batch operations. */
export const updateOrdersResultSchema = z.object({
  transaction_id: z.string().max(50).optional(),
  status: z.string().max(20).optional(),
  ispass3d: z.string().max(10).optional(),
  update_status: statusCode.optional(),
  error_message: z.string().max(1000).optional(),
});
export type UpdateOrdersResultElement = z.infer<typeof updateOrdersResultSchema>;
export const updateOrdersResponseSchema = z.object({
  ...replyEnvelope,
  update_orders: z.array(updateOrdersResultSchema).optional(),
});
export type UpdateOrdersResponse = z.infer<typeof updateOrdersResponseSchema>;
