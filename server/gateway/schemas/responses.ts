/**
 * The XML `respon` of /v1/authorise (direct and APM) as an object of strings. Unknown elements
 * are stripped; empty elements arrive as "". `risk_reasons` is normalised by the XML reader to
 * an array of `{ name, status }`.
 */
import { z } from 'zod';
import { codeText, currency, orEmpty, orderNo, statusCode, wireAmount } from './common.js';

const s = (max = 1000): z.ZodOptional<z.ZodString> => z.string().max(max).optional();

export const riskReasonSchema = z.object({ name: z.string().max(200), status: z.string().max(50) });
export type RiskReason = z.infer<typeof riskReasonSchema>;

export const authoriseResponseSchema = z.object({
  merchant_id: s(20),
  account_id: s(20),
  order_no: orderNo,
  amount: orEmpty(wireAmount).optional(),
  currency: orEmpty(currency).optional(),
  transaction_id: s(50),
  /** Masked card number only (e.g. 424242******4242). */
  card: s(30),
  order_status: statusCode.optional(),
  result_info: codeText.optional(),
  contract_name: s(200),
  recurring_id: s(50),
  recurring_deduction_period: s(50),
  recurring_deduction_time: s(30),
  note: s(1000),
  token_id: s(50),
  connector: s(200),
  threeds_result: s(200),
  risk_action: s(50),
  risk_score: s(20),
  risk_reasons: z.array(riskReasonSchema).max(100).optional(),
  issuer_url: z.string().max(4000).optional(),
  encryption_data: s(128),
});
export type AuthoriseResponse = z.infer<typeof authoriseResponseSchema>;
