/**
 * The two reads: transaction query (/v1/retrievalTrans) and refund search (/v1/retrievalRefund).
 * Requests are genuine form fields; lists are comma-separated, at most 100 entries and 1000
 * characters. Replies are JSON.
 */
import { z } from 'zod';
import { country, currency, orEmpty, replyEnvelope, requestIdentity, statusCode, timestamp14, wireAmount } from './common.js';

export const QUERY_LIST_MAX_ENTRIES = 100;
export const QUERY_LIST_MAX_LENGTH = 1000;

/** A comma-separated list of identifiers, as the query forms take them. */
export const idList = z
  .string()
  .min(1)
  .max(QUERY_LIST_MAX_LENGTH)
  .refine((value) => value.split(',').length <= QUERY_LIST_MAX_ENTRIES, `must list at most ${QUERY_LIST_MAX_ENTRIES} entries`)
  .refine((value) => value.split(',').every((entry) => entry !== '' && entry.length <= 50), 'entries must be 1-50 characters');

export const queryRequestSchema = z.object({
  ...requestIdentity,
  orders: idList.optional(),
  trades: idList.optional(),
});
export type QueryRequest = z.infer<typeof queryRequestSchema>;

const str = (max = 200): z.ZodOptional<z.ZodString> => z.string().max(max).optional();

export const deliveryInformationSchema = z.object({
  delivery_address: str(500),
  delivery_city: str(),
  delivery_country: orEmpty(country).optional(),
  delivery_firstname: str(),
  delivery_lastname: str(),
  delivery_postal_code: str(50),
  delivery_state: str(),
});

export const fraudCheckResultSchema = z.object({ check_items: str(), status: str(50) });

export const subscriptionResultSchema = z.object({
  contract_name: str(),
  recurring_deduction_period: str(50),
  recurring_deduction_time: str(30),
  recurring_id: str(50),
  recurring_status: statusCode.optional(),
});

export const queryOrderSchema = z.object({
  amount: wireAmount,
  currency,
  delivery_information: deliveryInformationSchema.optional(),
  antifraud_provider: str(),
  fraud_check_result: z.array(fraudCheckResultSchema).max(100).optional(),
  is3ds: statusCode.optional(),
  order_no: z.string().max(50),
  payment_status: statusCode.optional(),
  query_result: statusCode.optional(),
  reference_no: str(100),
  shopper_email: str(),
  shopper_phone: str(50),
  subscription_result: subscriptionResultSchema.optional(),
  transaction_date: orEmpty(timestamp14).optional(),
  transaction_id: str(50),
  website: str(2000),
});
export type QueryOrderElement = z.infer<typeof queryOrderSchema>;

/**
 * Published replies may carry the fraud fields at the top level rather than per order; the
 * client reads an order's own value first, then the top-level one.
 */
export const queryResponseSchema = z.object({
  ...replyEnvelope,
  orders_list: z.array(queryOrderSchema).max(1000).optional(),
  antifraud_provider: str(),
  fraud_check_result: z.array(fraudCheckResultSchema).max(100).optional(),
  is3ds: statusCode.optional(),
});
export type QueryResponse = z.infer<typeof queryResponseSchema>;

export const refundSearchRequestSchema = z.object({
  ...requestIdentity,
  refund_orders: idList.optional(),
  refund_references: idList.optional(),
  merchant_refunds: idList.optional(),
});
export type RefundSearchRequest = z.infer<typeof refundSearchRequestSchema>;

export const refundRecordSchema = z.object({
  transaction_id: str(50),
  order_no: str(50),
  amount: orEmpty(wireAmount).optional(),
  refund_status: statusCode.optional(),
  payment_status: statusCode.optional(),
  refund_amount: orEmpty(wireAmount).optional(),
  refund_reference: str(50),
  currency: orEmpty(currency).optional(),
  refund_reason: str(),
  refund_reference_id: str(60),
  refund_date: orEmpty(timestamp14).optional(),
  refund_processing_date: orEmpty(timestamp14).optional(),
});
export type RefundRecordElement = z.infer<typeof refundRecordSchema>;

export const refundSearchResponseSchema = z.object({
  ...replyEnvelope,
  refund_orders: z.array(refundRecordSchema).max(1000).optional(),
});
export type RefundSearchResponse = z.infer<typeof refundSearchResponseSchema>;
