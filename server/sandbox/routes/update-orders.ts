/** POST /v1/updateOrders: outcomes fed back to the risk engine, recorded in the ledger. */
import { randomUUID } from 'node:crypto';
import { ELEMENT_STATUS } from '../../gateway/codes.js';
import { BATCH_LIMITS, updateOrdersRequestSchema } from '../../gateway/schemas/index.js';
import type { SandboxContext } from '../context.js';
import { jsonReply, type Reply } from '../http.js';
import { authenticate, validate } from '../validate.js';
import { assertWithinLimit, envelope } from './batch-common.js';

export function handleUpdateOrders(ctx: SandboxContext, fields: Record<string, unknown>): Reply {
  const account = authenticate(ctx, 'updateOrders', fields);
  assertWithinLimit(fields, 'update_orders', BATCH_LIMITS.updateOrders);
  const request = validate(updateOrdersRequestSchema, fields);
  const results = ctx.ledger.database.atomically(() =>
    request.update_orders.map((element) => {
      const known = ctx.ledger.byTransactionId(account.merchantId, account.accountId, element.transaction_id) !== undefined;
      if (known) {
        const id = randomUUID();
        ctx.ledger.updateOrderRows.put(id, {
          id, merchantId: account.merchantId, accountId: account.accountId, transactionId: element.transaction_id,
          status: element.status, ispass3d: element.ispass3d, receivedAt: new Date().toISOString(),
        });
      }
      return { ...element, update_status: known ? ELEMENT_STATUS.ok : ELEMENT_STATUS.failed, error_message: known ? '' : `Transaction ${element.transaction_id} not found` };
    }),
  );
  return jsonReply(envelope(fields, 'update_orders', results));
}
