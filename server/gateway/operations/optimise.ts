/**
 * Optimise payment methods (/v1/optimise, multipart): the methods to offer a shopper, ranked by
 * acceptance rate. A read without side effects, but not re-sent (only the two documented reads
 * are). The reply shape is assumed (see docs/client.md).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { parseJsonReply, send, type CallOptions, type ErrorContext } from '../core.js';
import { toWireAmount } from '../money.js';
import { optimiseRequestSchema, optimiseResponseSchema, type OptimiseResponse } from '../schemas/optimise.js';
import { checkEcho, checkReturnStatus, identity, orNull, validate, withSignature, type ClientContext } from './context.js';
import { minorUnits } from './payment-inputs.js';

const { merchant_id: _m, account_id: _a, encryption_data: _e, ...optimiseFields } = optimiseRequestSchema.shape;

export const optimiseInputSchema = z.strictObject({
  ...optimiseFields,
  request_id: optimiseFields.request_id.optional(),
  amount: minorUnits,
});
/** Wire names; `amount` is minor units; `request_id` is generated when not given. */
export type OptimiseInput = z.input<typeof optimiseInputSchema>;

export interface RankedPaymentMethod {
  paymentMethod: string;
  name: string | null;
  /** As the gateway reports it (a rate or a percentage); null when absent. */
  acceptanceRate: number | null;
}

export interface OptimiseResult {
  raw: OptimiseResponse;
  requestId: string;
  returnMessage: string | null;
  /** Highest acceptance rate first. */
  paymentMethods: RankedPaymentMethod[];
}

export function createOptimise(ctx: ClientContext): (input: OptimiseInput, options?: CallOptions) => Promise<OptimiseResult> {
  return async (input, options) => {
    const parsed = validate(optimiseInputSchema, input);
    const requestId = parsed.request_id ?? randomUUID();
    const unsigned = { ...identity(ctx), ...parsed, request_id: requestId, amount: toWireAmount(parsed.amount, parsed.currency) };
    const wire = validate(optimiseRequestSchema, withSignature(ctx, 'optimise', unsigned));
    const ectx: ErrorContext = { operation: 'optimise', orderNo: `request ${requestId}` };
    const reply = await send(ctx.core, { operation: 'optimise', fields: wire, orderNo: ectx.orderNo, timeoutMs: options?.timeoutMs });
    const body = parseJsonReply(optimiseResponseSchema, reply, ectx);
    checkEcho(ctx, wire.encryption_data, body.encryption_data, ectx);
    checkReturnStatus(body, ectx);
    const paymentMethods = (body.payment_methods ?? [])
      .map((m) => ({
        paymentMethod: m.payment_method,
        name: orNull(m.name),
        acceptanceRate: m.acceptance_rate === undefined ? null : Number(m.acceptance_rate),
      }))
      .sort((a, b) => (b.acceptanceRate ?? -1) - (a.acceptanceRate ?? -1));
    return { raw: body, requestId, returnMessage: orNull(body.return_message), paymentMethods };
  };
}
