/**
 * The two reads: transaction query and refund search. Identifier lists are split into requests
 * of at most 100 entries and 1000 characters and the answers merged. Reads are the only
 * operations the core re-sends on transport errors and 5xx.
 */
import { ValidationError } from '../../errors.js';
import { parseJsonReply, send, type CallOptions, type ErrorContext, type WireReply } from '../core.js';
import {
  QUERY_LIST_MAX_ENTRIES, QUERY_LIST_MAX_LENGTH, queryRequestSchema, queryResponseSchema, refundSearchRequestSchema,
  refundSearchResponseSchema,
} from '../schemas/queries.js';
import type { GatewayOperation } from '../wire.js';
import { checkEcho, checkReturnStatus, identity, orNull, validate, withSignature, type ClientContext } from './context.js';
import {
  toQueryOrder, toRefundRecord, type QueryResult, type RefundSearchResult,
} from './query-results.js';

export type { QueryOrder, QueryResult, RefundRecord, RefundSearchResult } from './query-results.js';

export interface QueriesApi {
  transactions(q: { orders?: string[]; trades?: string[] }, options?: CallOptions): Promise<QueryResult>;
  refunds(
    q: { refundOrders?: string[]; refundReferences?: string[]; merchantRefunds?: string[] },
    options?: CallOptions,
  ): Promise<RefundSearchResult>;
}

/** Splits identifiers into comma-joined lists within both limits. Duplicates are sent once. */
export function chunkIdentifiers(ids: readonly string[], field: string): string[] {
  const lists: string[] = [];
  let current: string[] = [];
  let length = 0;
  [...new Set(ids)].forEach((id, i) => {
    if (id === '' || id.length > 50 || id.includes(',')) {
      throw new ValidationError([{ field: `${field}[${i}]`, message: 'must be 1-50 characters without commas' }]);
    }
    const extra = current.length === 0 ? id.length : id.length + 1;
    if (current.length >= QUERY_LIST_MAX_ENTRIES || length + extra > QUERY_LIST_MAX_LENGTH) {
      lists.push(current.join(','));
      current = [];
      length = 0;
    }
    length += current.length === 0 ? id.length : id.length + 1;
    current.push(id);
  });
  if (current.length > 0) lists.push(current.join(','));
  return lists;
}

type ListRequest = { param: string; list: string }[];

async function runLists<T>(
  ctx: ClientContext,
  operation: GatewayOperation & ('retrievalTrans' | 'retrievalRefund'),
  requests: ListRequest,
  options: CallOptions | undefined,
  read: (reply: WireReply, sent: string, ectx: ErrorContext) => { message: string | null; items: T[] },
): Promise<{ returnMessage: string | null; items: T[] }> {
  const items: T[] = [];
  let returnMessage: string | null = null;
  const ectx: ErrorContext = { operation };
  // One request after the other: the gateway limits reads by calling IP.
  for (const { param, list } of requests) {
    const schema = operation === 'retrievalTrans' ? queryRequestSchema : refundSearchRequestSchema;
    const wire = validate(schema, { ...withSignature(ctx, operation, identity(ctx)), [param]: list });
    const reply = await send(ctx.core, { operation, fields: wire, timeoutMs: options?.timeoutMs });
    const read1 = read(reply, wire.encryption_data, ectx);
    returnMessage ??= read1.message;
    items.push(...read1.items);
  }
  return { returnMessage, items };
}

function listRequests(pairs: [param: string, ids: string[] | undefined][]): ListRequest {
  const requests: ListRequest = [];
  for (const [param, ids] of pairs) {
    if (ids === undefined) continue;
    for (const list of chunkIdentifiers(ids, param)) requests.push({ param, list });
  }
  if (requests.length === 0) {
    throw new ValidationError([{ field: pairs.map(([p]) => p).join('|'), message: 'give at least one identifier' }]);
  }
  return requests;
}

export function createQueriesApi(ctx: ClientContext): QueriesApi {
  return {
    async transactions(q, options) {
      const requests = listRequests([['orders', q.orders], ['trades', q.trades]]);
      const { returnMessage, items } = await runLists(ctx, 'retrievalTrans', requests, options, (reply, sent, ectx) => {
        const body = parseJsonReply(queryResponseSchema, reply, ectx);
        checkEcho(ctx, sent, body.encryption_data, ectx);
        checkReturnStatus(body, ectx);
        return { message: orNull(body.return_message), items: (body.orders_list ?? []).map((o) => toQueryOrder(o, ectx, body)) };
      });
      return { returnStatus: '1', returnMessage, orders: items };
    },
    async refunds(q, options) {
      const requests = listRequests([
        ['refund_orders', q.refundOrders],
        ['refund_references', q.refundReferences],
        ['merchant_refunds', q.merchantRefunds],
      ]);
      const { returnMessage, items } = await runLists(ctx, 'retrievalRefund', requests, options, (reply, sent, ectx) => {
        const body = parseJsonReply(refundSearchResponseSchema, reply, ectx);
        checkEcho(ctx, sent, body.encryption_data, ectx);
        checkReturnStatus(body, ectx);
        return { message: orNull(body.return_message), items: (body.refund_orders ?? []).map((r) => toRefundRecord(r, ectx)) };
      });
      return { returnStatus: '1', returnMessage, refunds: items };
    },
  };
}

