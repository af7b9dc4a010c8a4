/**
 * POST /v1/updateOrders: outcomes fed back to the risk engine, recorded in the ledger. The
 * published reply is the bare envelope (`return_status` 1, `return_message` OK) with no element
 * per order, so the whole request succeeds or fails: one unknown transaction refuses it all
 * (return_status 0 naming it) and nothing is recorded.
 */
import { randomUUID } from 'node:crypto';
import type { SandboxContext } from '../context.js';
import { jsonReply, str, type Reply } from '../http.js';
import { authenticate, validate } from '../validate.js';
import { LIMITS, RETURN_MESSAGE_OK, RETURN_STATUS } from '../wire/codes.js';
import { updateOrdersRequest } from '../wire/other-requests.js';
import { assertWithinLimit } from './batch-common.js';

export function handleUpdateOrders(ctx: SandboxContext, fields: Record<string, unknown>): Reply {
  const account = authenticate(ctx, 'updateOrders', fields);
  assertWithinLimit(fields, 'update_orders', LIMITS.updateOrders);
  const request = validate(updateOrdersRequest, fields);
  const unknown = request.update_orders.find((e) => ctx.ledger.byTransactionId(account.merchantId, account.accountId, e.transaction_id) === undefined);
  const reply = (status: string, message: string): Reply =>
    jsonReply({
      merchant_id: str(fields, 'merchant_id'),
      account_id: str(fields, 'account_id'),
      return_status: status,
      return_message: message,
      encryption_data: str(fields, 'encryption_data'),
    });
  if (unknown !== undefined) return reply(RETURN_STATUS.failed, `Transaction ${unknown.transaction_id} not found`);
  ctx.ledger.database.atomically(() => {
    for (const element of request.update_orders) {
      const id = randomUUID();
      ctx.ledger.updateOrderRows.put(id, {
        id, merchantId: account.merchantId, accountId: account.accountId, transactionId: element.transaction_id,
        status: element.status, ispass3d: element.ispass3d, receivedAt: new Date().toISOString(),
      });
    }
  });
  return reply(RETURN_STATUS.ok, RETURN_MESSAGE_OK);
}
