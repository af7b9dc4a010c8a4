/**
 * Update orders (/v1/updateOrders): feeds outcomes back to the gateway's risk engine, up to 50
 * orders per request, any number per call. The published reply is the bare envelope
 * (`return_status` 1, `return_message` OK) with no element per order: its status then speaks for
 * every order of the request. A reply that does carry `update_orders` elements is read per element
 * (`update_status`), like the other batch operations.
 */
import { z } from 'zod';
import type { CallOptions } from '../core.js';
import {
  BATCH_LIMITS, updateOrderSchema, updateOrdersRequestSchema, updateOrdersResponseSchema, type UpdateOrdersResultElement,
} from '../schemas/batch.js';
import { runBatch, type BatchItemResult, type BatchSpec } from './batch-runner.js';
import type { ClientContext } from './context.js';

export interface UpdateOrderInput {
  transaction_id: string;
  status: string;
  ispass3d: string;
}

const spec: BatchSpec<UpdateOrderInput, UpdateOrdersResultElement> = {
  operation: 'updateOrders',
  arrayKey: 'update_orders',
  limit: BATCH_LIMITS.updateOrders,
  inputSchema: z.strictObject(updateOrderSchema.shape),
  toWire: (o) => ({ transaction_id: o.transaction_id, status: o.status, ispass3d: o.ispass3d }),
  requestSchema: updateOrdersRequestSchema,
  responseSchema: updateOrdersResponseSchema,
  elementsOf: (reply) => (reply as z.infer<typeof updateOrdersResponseSchema>).update_orders,
  statusOf: (e) => e.update_status,
  messageOf: (e) => e.error_message,
  transactionIdOf: (o) => o.transaction_id,
  orderNoOf: (o) => `transaction ${o.transaction_id}`,
  wholeRequestReply: true,
};

export type UpdateOrdersFn = (
  orders: UpdateOrderInput[],
  options?: CallOptions,
) => Promise<BatchItemResult<UpdateOrdersResultElement, UpdateOrderInput>[]>;

export function createUpdateOrders(ctx: ClientContext): UpdateOrdersFn {
  return (orders, options) => runBatch(ctx, spec, orders, options);
}
