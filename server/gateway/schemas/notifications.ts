/**
 * Notifications POSTed to notify_url as form fields (all strings). Signed with the
 * `notification` recipe; `webhooks_type` says which kind of fact the notification carries.
 */
import { z } from 'zod';
import { NOTIFICATION_TYPES } from '../codes.js';
import { codeText, country, currency, orEmpty, statusCode, wireAmount } from './common.js';

const s = (max = 200): z.ZodOptional<z.ZodString> => z.string().max(max).optional();

export const notificationSchema = z.object({
  merchant_id: z.string().min(1).max(7),
  account_id: z.string().min(1).max(10),
  transaction_id: s(50),
  order_no: z.string().min(1).max(50),
  amount: orEmpty(wireAmount).optional(),
  currency: orEmpty(currency).optional(),
  order_status: statusCode.optional(),
  error_code: s(50),
  result_info: codeText.optional(),
  chargeback_reason: s(1000),
  note: s(1000),
  return_type: s(50),
  payment_method: s(50),
  threeds_result: s(),
  /** Masked card number only. */
  card: s(30),
  billing_country: orEmpty(country).optional(),
  billing_state: s(100),
  billing_city: s(100),
  billing_address: s(500),
  billing_postal_code: s(50),
  first_name: s(100),
  last_name: s(100),
  webhooks_type: z.enum(NOTIFICATION_TYPES).optional(),
  payment_status: statusCode.optional(),
  refund_amount: orEmpty(wireAmount).optional(),
  refund_reference_id: s(60),
  encryption_data: z.string().min(1).max(128),
});
export type Notification = z.infer<typeof notificationSchema>;
