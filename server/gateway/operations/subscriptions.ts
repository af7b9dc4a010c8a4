/**
 * Cancel a subscription (/v1/cancelsubscription). A refusal of this one subscription is a result
 * (ok false, the gateway's error_message); a refused request is an exception.
 */
import { z } from 'zod';
import { ELEMENT_STATUS } from '../codes.js';
import { parseJsonReply, send, type CallOptions, type ErrorContext } from '../core.js';
import { text } from '../schemas/common.js';
import {
  cancelSubscriptionRequestSchema, cancelSubscriptionResponseSchema, type CancelSubscriptionResponse,
} from '../schemas/subscriptions.js';
import { checkEcho, checkReturnStatus, identity, orNull, validate, withSignature, type ClientContext } from './context.js';

export const cancelSubscriptionInputSchema = z.strictObject({
  recurring_id: text(50).min(1),
  contract_name: text(200).optional(),
});
export type CancelSubscriptionInput = z.input<typeof cancelSubscriptionInputSchema>;

export interface CancelSubscriptionResult {
  raw: CancelSubscriptionResponse;
  recurringId: string;
  contractName: string | null;
  /** cancel_status is "1". */
  ok: boolean;
  status: string | null;
  message: string | null;
}

export interface SubscriptionsApi {
  cancel(input: CancelSubscriptionInput, options?: CallOptions): Promise<CancelSubscriptionResult>;
}

export function createSubscriptionsApi(ctx: ClientContext): SubscriptionsApi {
  return {
    async cancel(input, options) {
      const parsed = validate(cancelSubscriptionInputSchema, input);
      const wire = validate(cancelSubscriptionRequestSchema, withSignature(ctx, 'cancelsubscription', { ...identity(ctx), ...parsed }));
      const ectx: ErrorContext = { operation: 'cancelsubscription', orderNo: `subscription ${parsed.recurring_id}` };
      const reply = await send(ctx.core, { operation: 'cancelsubscription', fields: wire, orderNo: ectx.orderNo, timeoutMs: options?.timeoutMs });
      const body = parseJsonReply(cancelSubscriptionResponseSchema, reply, ectx);
      // The reply shape is assumed: check the echo when it is there, and return_status likewise.
      checkEcho(ctx, wire.encryption_data, body.encryption_data, ectx);
      if (body.return_status !== undefined) checkReturnStatus(body, ectx);
      const status = orNull(body.cancel_status);
      return {
        raw: body,
        recurringId: parsed.recurring_id,
        contractName: orNull(body.contract_name) ?? parsed.contract_name ?? null,
        ok: status === ELEMENT_STATUS.ok,
        status,
        message: orNull(body.error_message),
      };
    },
  };
}
