/**
 * The one request core: POST a wire request, read the answer, map every failure to a typed error.
 * Only the two reads (retrievalTrans, retrievalRefund) are ever re-sent; anything that may move
 * money is sent once, and when its answer is lost the error says the outcome is unknown.
 * Messages name the operation and order number, never the body, so card data cannot leak.
 */
import type { z } from 'zod';
import { GatewayError, KitError, ProtocolError, TransportError, type ErrorCode } from '../errors.js';
import { maskCardNumbers, redact, silentLogger, type Logger } from '../logging.js';
import { observeGatewayCall, type GatewayCallObserver } from './observed-call.js';
import { GATEWAY_ERROR_CODES } from './codes.js';
import { gatewayErrorBodySchema, zodIssuesToFields } from './schemas/common.js';
import { TransportFailure, type Transport, type TransportReply } from './transport.js';
import { encodeBody, OPERATION_PATHS, type GatewayOperation } from './wire.js';
import { compiled } from '../zod-compiled.js';

export interface RetryPolicy {
  /** Total attempts for a read, including the first. */
  attempts: number;
  baseDelayMs: number;
}

export interface CoreConfig {
  /** Without a trailing slash. */
  baseUrl: string;
  /** Carries every request: undici by default, or the caller's fetch. */
  transport: Transport;
  timeoutMs: number;
  jsonContentType: string;
  /** Already redacting. */
  logger: Logger;
  readRetries: RetryPolicy;
  sleep?: (ms: number) => Promise<void>;
  /** Counts and times every attempt (metrics); spans are made either way. */
  observer?: GatewayCallObserver | undefined;
}

export interface CallOptions {
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
}

export interface WireCall {
  operation: GatewayOperation;
  fields: Readonly<Record<string, unknown>>;
  /** Names the order in logs and errors (first order of a batch). */
  orderNo?: string | undefined;
  timeoutMs?: number | undefined;
}

export type WireReply = TransportReply;

/** Reads: safe to re-send. */
export const RETRIED_OPERATIONS: ReadonlySet<GatewayOperation> = new Set(['retrievalTrans', 'retrievalRefund']);
/** Operations that change nothing at the gateway: a lost answer leaves no unknown outcome. */
const STATELESS_OPERATIONS: ReadonlySet<GatewayOperation> = new Set(['retrievalTrans', 'retrievalRefund', 'optimise']);

export interface ErrorContext {
  operation: GatewayOperation;
  orderNo?: string | undefined;
}

export const describe = (ctx: ErrorContext): string =>
  ctx.orderNo === undefined ? ctx.operation : `${ctx.operation} for order ${ctx.orderNo}`;

const gatewayText = (value: string | undefined): string | undefined =>
  value === undefined ? undefined : maskCardNumbers(value).slice(0, 300);

function transportError(error: unknown, timedOut: boolean, ctx: ErrorContext, timeoutMs: number): TransportError {
  const outcomeUnknown = !STATELESS_OPERATIONS.has(ctx.operation);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const sysCode = typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : undefined;
  const what = timedOut ? `no answer within ${timeoutMs} ms` : `connection to the gateway failed${sysCode === undefined ? '' : ` (${sysCode})`}`;
  const advice = outcomeUnknown
    ? 'The outcome is unknown: the gateway may have acted. Settle it by query; do not send it again.'
    : 'Nothing changed at the gateway; it is safe to try again.';
  return new TransportError(timedOut ? 'ERR_TRANSPORT_TIMEOUT' : 'ERR_TRANSPORT_CONNECTION', `${describe(ctx)}: ${what}. ${advice}`, {
    outcomeUnknown,
    cause: error,
    details: { operation: ctx.operation, orderNo: ctx.orderNo, systemCode: sysCode, timeoutMs: timedOut ? timeoutMs : undefined },
  });
}

const NAMED_CODES: Readonly<Record<string, ErrorCode & `ERR_GATEWAY_${string}`>> = {
  [GATEWAY_ERROR_CODES.badSignature]: 'ERR_GATEWAY_BAD_SIGNATURE',
  [GATEWAY_ERROR_CODES.testAccountOnLive]: 'ERR_GATEWAY_TEST_ACCOUNT_ON_LIVE',
  [GATEWAY_ERROR_CODES.liveAccountOnTest]: 'ERR_GATEWAY_LIVE_ACCOUNT_ON_TEST',
  [GATEWAY_ERROR_CODES.ipNotRegistered]: 'ERR_GATEWAY_IP_NOT_ALLOWED',
};

/** What the merchant must do, for refusals that only the merchant can fix. */
const ADVICE: Partial<Record<ErrorCode, string>> = {
  ERR_GATEWAY_IP_NOT_ALLOWED:
    "The gateway answers this operation only to registered caller IP addresses: add this server's public (outbound) IP address to the account's IP allowlist with the gateway, then retry.",
};

function readErrorBody(text: string): z.infer<typeof gatewayErrorBodySchema> | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const parsed = gatewayErrorBodySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const ERROR_BODY_KEYS = new Set(['code', 'source', 'message']);

function isBareErrorBody(text: string): boolean {
  if (readErrorBody(text) === undefined) return false;
  const keys = Object.keys(JSON.parse(text) as object);
  return keys.every((key) => ERROR_BODY_KEYS.has(key));
}

/** Maps a refusal (non-2xx, or a 2xx carrying only an error body) to a GatewayError. */
export function refusalError(status: number, text: string, ctx: ErrorContext): GatewayError {
  const body = readErrorBody(text);
  const named = body === undefined ? undefined : NAMED_CODES[body.code];
  const code: ErrorCode & `ERR_GATEWAY_${string}` =
    named ?? (status === 400 ? 'ERR_GATEWAY_INVALID_INPUT' : status === 404 ? 'ERR_GATEWAY_NOT_FOUND' : status >= 200 && status < 300 ? 'ERR_GATEWAY_STATUS' : 'ERR_GATEWAY_HTTP');
  const message = gatewayText(body?.message);
  const parts = [`HTTP ${status}`, body?.code, body?.source === undefined ? undefined : `source ${body.source}`].filter(Boolean);
  const advice = ADVICE[code];
  return new GatewayError(code, `${describe(ctx)} refused by the gateway (${parts.join(', ')})${message ? `: ${message}` : ''}${advice === undefined ? '' : `. ${advice}`}`, {
    httpStatus: status,
    ...(body === undefined ? {} : { gatewayCode: body.code }),
    details: { operation: ctx.operation, orderNo: ctx.orderNo, httpStatus: status, gatewayCode: body?.code, source: body?.source, gatewayMessage: message },
  });
}

function isRetriable(error: unknown): boolean {
  if (error instanceof TransportError) return true;
  return error instanceof GatewayError && error.code === 'ERR_GATEWAY_HTTP' && (error.httpStatus ?? 0) >= 500;
}

/** Exponential backoff with equal jitter: half the step fixed, half random. */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const step = policy.baseDelayMs * 2 ** (retry - 1);
  return Math.round(step / 2 + random() * (step / 2));
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function sendOnce(config: CoreConfig, call: WireCall, attempt: number): Promise<WireReply> {
  const ctx: ErrorContext = { operation: call.operation, orderNo: call.orderNo };
  const url = `${config.baseUrl}${OPERATION_PATHS[call.operation]}`;
  const encoded = encodeBody(call.operation, call.fields, config.jsonContentType);
  const timeoutMs = call.timeoutMs ?? config.timeoutMs;
  const headers: Record<string, string> = {};
  if (encoded.contentType !== null) headers['content-type'] = encoded.contentType;
  // The bodies are copied and redacted for the debug lines only when they are logged: the
  // arguments are built before the logger can drop the line, and the default logger drops debug.
  const logging = config.logger !== silentLogger && config.logger.isLevelEnabled?.('debug') !== false;
  if (logging) {
    config.logger.debug(
      { event: 'gateway.request', operation: call.operation, orderNo: call.orderNo, url, attempt, body: redact(call.fields) },
      'gateway request',
    );
  }
  let reply: WireReply;
  try {
    reply = await config.transport.send({ url, headers, body: encoded.body, timeoutMs });
  } catch (error) {
    if (error instanceof KitError) throw error;
    const mapped =
      error instanceof TransportFailure ? transportError(error.cause, error.timedOut, ctx, timeoutMs) : transportError(error, false, ctx, timeoutMs);
    config.logger.warn({ event: 'gateway.transport_error', operation: call.operation, orderNo: call.orderNo, attempt, code: mapped.code }, mapped.message);
    throw mapped;
  }
  if (logging) {
    config.logger.debug(
      { event: 'gateway.response', operation: call.operation, orderNo: call.orderNo, attempt, httpStatus: reply.status, body: maskCardNumbers(reply.text.slice(0, 4000)) },
      'gateway response',
    );
  }
  if (reply.status < 200 || reply.status > 299) {
    const refused = refusalError(reply.status, reply.text, ctx);
    config.logger.warn({ event: 'gateway.refused', operation: call.operation, orderNo: call.orderNo, attempt, code: refused.code, httpStatus: reply.status }, refused.message);
    throw refused;
  }
  // Some gateways answer 200 with nothing but an error body.
  if (isBareErrorBody(reply.text)) throw refusalError(reply.status, reply.text, ctx);
  return reply;
}

/** Sends one request; re-sends reads on transport errors and 5xx, never anything else. */
export async function send(config: CoreConfig, call: WireCall): Promise<WireReply> {
  const attempts = RETRIED_OPERATIONS.has(call.operation) ? Math.max(1, config.readRetries.attempts) : 1;
  const sleep = config.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await observeGatewayCall(config.observer, call.operation, attempt, () => sendOnce(config, call, attempt));
    } catch (error) {
      if (attempt >= attempts || !isRetriable(error)) throw error;
      const delayMs = backoffDelay(config.readRetries, attempt);
      config.logger.info({ event: 'gateway.retry', operation: call.operation, attempt, delayMs }, 'retrying a read');
      await sleep(delayMs);
    }
  }
}

/** JSON `null` means "absent" to the schemas. */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) if (v !== null) out[key] = dropNulls(v);
    return out;
  }
  return value;
}

export function malformedReply(ctx: ErrorContext, reason: string, details: Record<string, unknown> = {}): ProtocolError {
  return new ProtocolError('ERR_PROTOCOL_MALFORMED', `${describe(ctx)}: unreadable reply (${reason})`, {
    details: { operation: ctx.operation, orderNo: ctx.orderNo, ...details },
  });
}

/** Parses a JSON reply and validates it; anything unreadable is ERR_PROTOCOL_MALFORMED. */
export function parseJsonReply<S extends z.ZodType>(schema: S, reply: WireReply, ctx: ErrorContext): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(reply.text);
  } catch {
    throw malformedReply(ctx, 'not JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw malformedReply(ctx, 'not a JSON object');
  const parsed = compiled(schema).safeParse(dropNulls(json));
  if (!parsed.success) {
    const issues = zodIssuesToFields(parsed.error);
    throw malformedReply(ctx, issues.map((i) => `${i.field} ${i.message}`).join('; '), { issues });
  }
  return parsed.data;
}
