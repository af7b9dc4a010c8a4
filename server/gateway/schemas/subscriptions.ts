/**
 * Cancel a subscription (POST /v1/cancelsubscription, path from the public documentation): the
 * reply echoes the request with `cancel_status` ("1" on success) and `error_message`.
 */
import { z } from 'zod';
import { requestIdentity, statusCode, text } from './common.js';

export const cancelSubscriptionRequestSchema = z.object({
  ...requestIdentity,
  recurring_id: text(50).min(1),
  contract_name: text(200).optional(),
});
export type CancelSubscriptionRequest = z.infer<typeof cancelSubscriptionRequestSchema>;

export const cancelSubscriptionResponseSchema = z.object({
  merchant_id: z.string().max(20).optional(),
  account_id: z.string().max(20).optional(),
  recurring_id: z.string().max(50).optional(),
  contract_name: z.string().max(200).optional(),
  encryption_data: z.string().max(128).optional(),
  cancel_status: statusCode.optional(),
  error_message: z.string().max(1000).optional(),
  return_status: statusCode.optional(),
  return_message: z.string().max(1000).optional(),
});
export type CancelSubscriptionResponse = z.infer<typeof cancelSubscriptionResponseSchema>;
