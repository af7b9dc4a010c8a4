/** POST /v1/optimise (multipart, also JSON or form): APM methods ranked by acceptance rate. */
import { rankMethods } from '../apm-methods.js';
import type { SandboxContext } from '../context.js';
import { jsonReply, type Reply } from '../http.js';
import { amountOf, authenticate, validate } from '../validate.js';
import { RETURN_MESSAGE_OK, RETURN_STATUS } from '../wire/codes.js';
import { optimiseRequest } from '../wire/other-requests.js';

export function handleOptimise(ctx: SandboxContext, fields: Record<string, unknown>): Reply {
  authenticate(ctx, 'optimise', fields);
  const request = validate(optimiseRequest, fields);
  amountOf(request.amount, request.currency, 'amount');
  return jsonReply({
    merchant_id: request.merchant_id,
    account_id: request.account_id,
    request_id: request.request_id,
    encryption_data: request.encryption_data,
    return_status: RETURN_STATUS.ok,
    return_message: RETURN_MESSAGE_OK,
    payment_methods: rankMethods(request.shopper_country),
  });
}
