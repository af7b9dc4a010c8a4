/**
 * The pipeline every /v1 endpoint runs: read the body, apply matching faults, run the handler,
 * write its reply. Handlers return a Reply value so faults can break, hold or drop it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from '../logging.js';
import { readBody } from './wire/body.js';
import type { RequestInfo, SandboxContext } from './context.js';
import type { FaultTarget, SandboxOperation, StoredFaultRule } from './faults.js';
import { errorReply, jsonReply, SandboxHttpError, str, writeReply, type Reply } from './http.js';

/** How long a `timeout` fault holds a response: far beyond any client timeout. */
export const TIMEOUT_HOLD_MS = 10 * 60 * 1000;

/** Responses held or delayed by faults, released when the sandbox closes. */
export class HeldResponses {
  readonly #held = new Map<ServerResponse, NodeJS.Timeout>();
  readonly #waiting = new Set<() => void>();
  #closed = false;

  /** Keeps `res` unanswered for TIMEOUT_HOLD_MS, then answers it with `send`. */
  hold(res: ServerResponse, send: () => void): void {
    const timer = setTimeout(() => {
      this.#held.delete(res);
      if (!res.headersSent) send();
    }, TIMEOUT_HOLD_MS);
    timer.unref();
    this.#held.set(res, timer);
  }

  /** Waits `ms`, or less if the sandbox closes meanwhile. */
  async delay(ms: number): Promise<void> {
    if (this.#closed || ms <= 0) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.#waiting.add(done);
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Drops every held connection so servers can close. */
  releaseAll(): void {
    this.#closed = true;
    for (const [res, timer] of this.#held) {
      clearTimeout(timer);
      res.socket?.destroy();
    }
    this.#held.clear();
    for (const done of [...this.#waiting]) done();
  }
}

/** `contentType` is the request's Content-Type header ('' when none). */
export type EndpointHandler = (req: RequestInfo, fields: Record<string, unknown>, contentType: string) => Reply | Promise<Reply>;

/** Every order_no a request names: the field itself, batch elements, the query list. */
function targetOf(fields: Readonly<Record<string, unknown>>): FaultTarget {
  const orderNos: string[] = [];
  const own = str(fields, 'order_no');
  if (own !== '') orderNos.push(own);
  for (const value of Object.values(fields)) {
    if (!Array.isArray(value)) continue;
    for (const element of value as unknown[]) {
      if (typeof element === 'object' && element !== null) {
        const orderNo = str(element as Record<string, unknown>, 'order_no');
        if (orderNo !== '') orderNos.push(orderNo);
      }
    }
  }
  const list = str(fields, 'orders');
  if (list !== '') orderNos.push(...list.split(','));
  return { merchantId: str(fields, 'merchant_id'), accountId: str(fields, 'account_id'), orderNos };
}

/** Broken on purpose: half a document, so neither an XML nor a JSON reader accepts it. */
export function corrupt(reply: Reply): Reply {
  const half = reply.body.slice(0, Math.max(1, Math.floor(reply.body.length / 2)));
  return { ...reply, body: reply.contentType.includes('xml') ? `${half}<respon<` : `${half}{"` };
}

async function runHandler(
  handler: EndpointHandler,
  req: RequestInfo,
  fields: Record<string, unknown>,
  contentType: string,
  logger: Logger,
  operation: string,
): Promise<Reply> {
  try {
    return await handler(req, fields, contentType);
  } catch (error) {
    if (error instanceof SandboxHttpError) return errorReply(error);
    logger.error({ operation, error }, 'sandbox endpoint failed');
    return jsonReply({ code: 'I9999', source: '', message: 'sandbox internal error' }, 500);
  }
}

type Send = (reply: Reply) => void;

function applyFinal(res: ServerResponse, req: IncomingMessage, reply: Reply, faults: readonly StoredFaultRule[], held: HeldResponses, send: Send): void {
  if (faults.some((f) => f.kind === 'reset')) {
    req.socket.destroy();
    return;
  }
  if (faults.some((f) => f.kind === 'timeout')) {
    held.hold(res, () => {
      send(reply);
    });
    return;
  }
  send(faults.some((f) => f.kind === 'malformed') ? corrupt(reply) : reply);
}

/** One /v1 request: read the body, apply matching faults, run the handler, answer through `send`. */
async function serve(
  ctx: SandboxContext,
  held: HeldResponses,
  operation: SandboxOperation,
  handler: EndpointHandler,
  req: IncomingMessage,
  info: RequestInfo,
  res: ServerResponse,
  send: Send,
): Promise<void> {
  let fields: Record<string, unknown>;
  let contentType: string;
  try {
    ({ fields, contentType } = await readBody(req));
  } catch (error) {
    if (error instanceof SandboxHttpError) {
      if (error.status === 413) res.setHeader('Connection', 'close');
      send(errorReply(error));
      return;
    }
    throw error;
  }
  const faults = ctx.faults.takeForRequest(operation, () => targetOf(fields));
  if (faults.length > 0) {
    const latency = faults.reduce((sum, f) => sum + (f.kind === 'latency' ? (f.latencyMs ?? 1000) : 0), 0);
    await held.delay(latency);
  }
  if (held.closed) {
    req.socket.destroy();
    return;
  }
  if (faults.some((f) => f.kind === 'http500')) {
    // The request is refused before anything happens, as a crashed gateway would.
    send({ status: 500, contentType: 'text/html; charset=utf-8', body: '<html><body>500 Internal Server Error</body></html>' });
    return;
  }
  const reply = await runHandler(handler, info, fields, contentType, ctx.options.logger, operation);
  ctx.options.logger.info({ operation, status: reply.status, orderNo: str(fields, 'order_no'), faults: faults.map((f) => f.kind) }, 'sandbox request');
  applyFinal(res, req, reply, faults, held, send);
}

/** What Express tells a handler about a request to the top-level app with 'trust proxy' off. */
function directInfo(req: IncomingMessage): RequestInfo {
  return {
    protocol: (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http',
    baseUrl: '',
    socket: req.socket,
    get: () => req.headers.host,
  };
}

export type DirectHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface Endpoint {
  /** The Express route: mounted apps, and whatever sandbox.listen() leaves to the app. */
  express: RequestHandler;
  /** The same pipeline on a plain node request. */
  direct: DirectHandler;
}

export function endpoint(ctx: SandboxContext, held: HeldResponses, operation: SandboxOperation, handler: EndpointHandler): Endpoint {
  return {
    express: (req, res) =>
      serve(ctx, held, operation, handler, req, req, res, (reply) => {
        writeReply(res, reply);
      }),
    direct: (req, res) =>
      serve(ctx, held, operation, handler, req, directInfo(req), res, (reply) => {
        writeReply(res, reply);
      }),
  };
}
