/**
 * Runs a batch operation over any number of orders: validates every order first (bad input sends
 * nothing), splits into requests of the gateway's limit, sends them with bounded concurrency and
 * returns one result per input order, in input order. A request that fails is reported on each
 * of its orders (ok false, error set); no order is ever dropped. Batches are never re-sent.
 */
import { z } from 'zod';
import { KitError, ProtocolError } from '../../errors.js';
import { ELEMENT_STATUS } from '../codes.js';
import { parseJsonReply, send, type CallOptions, type ErrorContext } from '../core.js';
import type { SignedOperation } from '../signing.js';
import { checkEcho, checkReturnStatus, identity, orNull, validate, withSignature, type ClientContext } from './context.js';

export interface BatchItemResult<E, I = unknown> {
  input: I;
  /** The gateway answered this order with status "1". */
  ok: boolean;
  /** The element's own status (capture_status, refund_status, …), null when none came back. */
  status: string | null;
  /** The element's error_message or refund_message, null when empty. */
  message: string | null;
  element: E | null;
  /** Set when no per-order answer exists: the request failed, or the reply left this order out. */
  error: KitError | null;
}

type BatchOperation = SignedOperation & ('capture' | 'cancel' | 'review' | 'refund' | 'updateOrders');

export interface BatchSpec<I, E extends { transaction_id?: string | undefined }> {
  operation: BatchOperation;
  /** The request's and reply's order array (capture_orders, …). */
  arrayKey: string;
  limit: number;
  inputSchema: z.ZodType<I>;
  /** Input order to wire element; `field` prefixes error paths. */
  toWire(input: I, field: string): Record<string, unknown>;
  requestSchema: z.ZodType<Record<string, unknown> & { encryption_data: string }>;
  responseSchema: z.ZodType<{ return_status: string; return_message?: string | undefined; encryption_data?: string | undefined }>;
  elementsOf(reply: unknown): E[] | undefined;
  statusOf(element: E): string | undefined;
  messageOf(element: E): string | undefined;
  transactionIdOf(input: I): string;
  orderNoOf(input: I): string | undefined;
  /**
   * The reply may be the bare envelope with no element per order (updateOrders as published):
   * then return_status speaks for every order of the request.
   */
  wholeRequestReply?: boolean;
}

/**
 * A bare envelope answers every order alike: return_status "1" means each succeeded; any other
 * status means each failed with return_message (and the request's GatewayError as `error`).
 */
function wholeRequestResults<I, E>(
  inputs: readonly I[],
  body: { return_status: string; return_message?: string | undefined },
  ectx: ErrorContext,
): BatchItemResult<E, I>[] {
  let error: KitError | null = null;
  try {
    checkReturnStatus(body, ectx);
  } catch (caught) {
    if (!(caught instanceof KitError)) throw caught;
    error = caught;
  }
  const status = orNull(body.return_status);
  const message = orNull(body.return_message);
  return inputs.map((input) => ({ input, ok: error === null, status, message, element: null, error }));
}

/** Runs `task` over `items` with at most `limit` running at once; results keep item order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Pairs each input with its reply element: by transaction_id, else by position. */
function matchElements<I, E extends { transaction_id?: string | undefined }>(
  spec: BatchSpec<I, E>,
  inputs: readonly I[],
  elements: readonly E[],
): (E | null)[] {
  const used = new Set<number>();
  return inputs.map((input, i) => {
    const id = spec.transactionIdOf(input);
    const byId = elements.findIndex((e, j) => !used.has(j) && e.transaction_id === id);
    const at = byId >= 0 ? byId : !used.has(i) && elements[i] !== undefined && orNull(elements[i].transaction_id) === null ? i : -1;
    if (at < 0) return null;
    used.add(at);
    return elements[at] ?? null;
  });
}

async function runChunk<I, E extends { transaction_id?: string | undefined }>(
  ctx: ClientContext,
  spec: BatchSpec<I, E>,
  inputs: readonly I[],
  wireElements: Record<string, unknown>[],
  options: CallOptions | undefined,
): Promise<BatchItemResult<E, I>[]> {
  const first = spec.orderNoOf(inputs[0] as I);
  const ectx: ErrorContext = { operation: spec.operation, orderNo: inputs.length > 1 ? `${first ?? '?'} and ${inputs.length - 1} more` : first };
  try {
    const wire = validate(spec.requestSchema, withSignature(ctx, spec.operation, { ...identity(ctx), [spec.arrayKey]: wireElements }));
    const reply = await send(ctx.core, { operation: spec.operation, fields: wire, orderNo: ectx.orderNo, timeoutMs: options?.timeoutMs });
    const body = parseJsonReply(spec.responseSchema, reply, ectx);
    checkEcho(ctx, wire.encryption_data, body.encryption_data, ectx);
    const elements = spec.elementsOf(body);
    if (spec.wholeRequestReply === true && (elements === undefined || elements.length === 0)) return wholeRequestResults(inputs, body, ectx);
    checkReturnStatus(body, ectx);
    const matched = matchElements(spec, inputs, elements ?? []);
    return inputs.map((input, i) => {
      const element = matched[i] ?? null;
      if (element === null) {
        const error = new ProtocolError('ERR_PROTOCOL_MALFORMED', `${spec.operation} for order ${spec.orderNoOf(input) ?? '?'}: the reply has no element for this order`, {
          details: { operation: spec.operation, orderNo: spec.orderNoOf(input) },
        });
        return { input, ok: false, status: null, message: null, element: null, error };
      }
      const status = orNull(spec.statusOf(element));
      return { input, ok: status === ELEMENT_STATUS.ok, status, message: orNull(spec.messageOf(element)), element, error: null };
    });
  } catch (caught) {
    const error =
      caught instanceof KitError
        ? caught
        : new ProtocolError('ERR_PROTOCOL_MALFORMED', `${spec.operation}: unexpected failure while reading the reply`, { cause: caught });
    return inputs.map((input) => ({ input, ok: false, status: null, message: null, element: null, error }));
  }
}

export async function runBatch<I, E extends { transaction_id?: string | undefined }>(
  ctx: ClientContext,
  spec: BatchSpec<I, E>,
  orders: readonly I[],
  options?: CallOptions,
): Promise<BatchItemResult<E, I>[]> {
  const parsed = validate(z.object({ orders: z.array(spec.inputSchema).min(1) }), { orders }).orders;
  const wireElements = parsed.map((input, i) => spec.toWire(input, `orders[${i}]`));
  // Results carry the caller's own objects, so they can be matched by identity.
  const inputChunks = chunk(orders, spec.limit);
  const wireChunks = chunk(wireElements, spec.limit);
  const results = await mapLimit(inputChunks, ctx.batchConcurrency, (inputChunk, i) =>
    runChunk(ctx, spec, inputChunk, wireChunks[i] ?? [], options),
  );
  return results.flat();
}
