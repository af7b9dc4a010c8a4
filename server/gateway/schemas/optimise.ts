/**
 * Optimise payment methods (POST /v1/optimise, multipart): the methods available to a shopper,
 * ranked by acceptance rate. The reply shape is not published; this is the assumed one.
 */
import { z } from 'zod';
import { country, currency, email, looseNumber, replyEnvelope, requestIdentity, text, wireAmount } from './common.js';

export const optimiseRequestSchema = z.object({
  ...requestIdentity,
  request_id: text(50).min(1),
  amount: wireAmount,
  currency,
  shopper_id: text(64).optional(),
  shopper_email: email,
  shopper_ip: text(50).optional(),
  shopper_country: country.optional(),
  shopper_level: text(50).optional(),
  /** WEB, MOBILE, IOS, ANDROID, … */
  platform: text(20).optional(),
});
export type OptimiseRequest = z.infer<typeof optimiseRequestSchema>;

export const optimisePaymentMethodSchema = z.object({
  payment_method: z.string().min(1).max(50),
  name: z.string().max(200).optional(),
  acceptance_rate: looseNumber.optional(),
});

export const optimiseResponseSchema = z.object({
  ...replyEnvelope,
  request_id: z.string().max(50).optional(),
  payment_methods: z.array(optimisePaymentMethodSchema).max(500).optional(),
});
export type OptimiseResponse = z.infer<typeof optimiseResponseSchema>;
