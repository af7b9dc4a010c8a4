/**
 * How one gateway request travels: POST a body, read at most 1 MiB of answer, within a deadline.
 * The default dispatches to undici on one keep-alive Agent per client; a caller's own
 * fetch still works through the fetch transport. Neither follows redirects: a 3xx is an answer.
 * Neither ever sends a request twice (undici re-sends only idempotent methods, never a POST);
 * whether a failure may be retried is the core's decision.
 */
// Measured (bench/machinery.ts transport, docs/performance.md "Machinery"): undici's request on a
// keep-alive Agent used 0.73× the CPU per call of the node:http client it replaced, at 2.4× the
// calls/s; dispatching with a handler of our own instead of request() then used 35 µs of CPU per
// call against 63, at 1.6× the calls/s (5 rounds, each lower).
import type { IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { KitError, ProtocolError } from '../errors.js';
import { merged } from '../objects.js';
import type { EncodedBody } from './wire.js';

// Only undici's dispatcher and its error classes, by their own modules: undici's index also loads
// its fetch, WebSocket, cache, mock and proxy modules, about 3 MB of live heap (measured:
// 4.8 MB for the index, 1.7 MB for these two), which V8 lets grow several-fold under load
// (docs/performance.md, "Memory"). A unit test holds these paths to the index's exports.
const requireUndici = createRequire(import.meta.url);
const Agent = requireUndici('undici/lib/dispatcher/agent') as typeof Undici.Agent;
const errors = requireUndici('undici/lib/core/errors') as typeof Undici.errors;

export const MAX_REPLY_BYTES = 1024 * 1024;

export interface TransportRequest {
  url: string;
  /** Lower-case names. Without a content-type for multipart: the transport writes the boundary. */
  headers: Readonly<Record<string, string>>;
  body: EncodedBody['body'];
  timeoutMs: number;
}

export interface TransportReply {
  status: number;
  contentType: string;
  text: string;
}

export interface Transport {
  send(request: TransportRequest): Promise<TransportReply>;
  /** Lets go of pooled connections; requests already under way still finish. */
  close(): void;
}

/**
 * A request that got no usable answer. `cause` is the underlying error (its `code` is the system
 * code, e.g. ECONNREFUSED); `timedOut` says the deadline passed first.
 */
export class TransportFailure extends Error {
  readonly timedOut: boolean;
  constructor(timedOut: boolean, cause: unknown) {
    super(timedOut ? 'gateway request timed out' : 'gateway request failed', { cause });
    this.timedOut = timedOut;
  }
}

const replyTooLarge = (): ProtocolError => new ProtocolError('ERR_PROTOCOL_MALFORMED', `Reply larger than ${MAX_REPLY_BYTES} bytes`);

/** The reason AbortSignal.timeout gives, so a timeout's cause reads the same whichever transport ran. */
const timeoutReason = (): DOMException => new DOMException('The operation was aborted due to timeout', 'TimeoutError');

async function readLimited(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_REPLY_BYTES) {
      await reader.cancel();
      throw replyTooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Sends through a caller's fetch (tests, proxies): its connections are its own. */
export function fetchTransport(fetchFn: typeof fetch): Transport {
  return {
    async send({ url, headers, body, timeoutMs }) {
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const response = await fetchFn(url, { method: 'POST', headers, body, signal, redirect: 'manual' });
        return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await readLimited(response) };
      } catch (error) {
        if (error instanceof KitError) throw error;
        throw new TransportFailure(signal.aborted, error);
      }
    },
    close() {
      // The caller owns its fetch and whatever connections it keeps.
    },
  };
}

/** Connections per client; more requests than this wait for a free one (within their deadline). */
const MAX_CONNECTIONS = 64;
/**
 * Idle connections close after this long, or 1 s before the server's own Keep-Alive timeout when
 * it announces a shorter one, so a request rarely meets a connection the server is closing.
 */
const IDLE_CONNECTION_MS = 4_000;
/** What fetch sends besides the body's headers, less its browser-only and compression headers. */
const FIXED_HEADERS: Readonly<Record<string, string>> = { accept: '*/*', 'user-agent': 'node' };

/**
 * One deadline per request (the caller's timeoutMs) covers connecting, sending and reading, so
 * undici's own connect, headers and body timers are off; the reply limit is undici's, which
 * closes the connection when it is passed.
 */
const agentOptions = (keepAlive: boolean): Undici.Agent.Options => ({
  connections: MAX_CONNECTIONS,
  keepAliveTimeout: IDLE_CONNECTION_MS,
  connectTimeout: 0,
  headersTimeout: 0,
  bodyTimeout: 0,
  maxResponseSize: MAX_REPLY_BYTES,
  // 0 sends `connection: close`: each connection carries one request and is not pooled.
  pipelining: keepAlive ? 1 : 0,
});

/** Multipart is rare (optimise): fetch's own encoder gives the same bytes and boundary as before. */
async function encodeFormData(form: FormData): Promise<{ bytes: Buffer; contentType: string }> {
  const encoded = new Response(form);
  return { bytes: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') ?? 'multipart/form-data' };
}

/**
 * What a failed request's cause says. undici reports a connection the server closed before
 * answering as its own SocketError; node:http and fetch call that ECONNRESET, which is what
 * `details.systemCode` has always said.
 */
function failureOf(error: unknown, timedOut: boolean): Error {
  if (error instanceof KitError) return error;
  if (timedOut) return new TransportFailure(true, timeoutReason());
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return replyTooLarge();
  if (code === 'UND_ERR_SOCKET') {
    const reason = error instanceof Error ? error.message : 'socket error';
    return new TransportFailure(false, Object.assign(new Error(`connection closed before the answer (${reason})`), { code: 'ECONNRESET' }));
  }
  return new TransportFailure(false, error);
}

/** Where a URL's request goes, as undici's `request(url)` reads it (origin, then path and query). */
interface Target {
  origin: string;
  path: string;
}

/** Parses each URL once: the core sends to a dozen fixed URLs per client. */
const MAX_TARGETS = 64;

function parseTarget(url: string): Target {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new errors.InvalidArgumentError('Invalid URL protocol: the URL must start with `http:` or `https:`.');
  }
  return { origin: parsed.origin, path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname };
}

const CONTENT_TYPE = 'content-type';

/**
 * One request's exchange with undici's dispatcher: the answer's status, content type and body
 * collected as they arrive, within the deadline. undici's `request` wraps the same dispatch in an
 * async resource, an abort signal and a body stream (read back with `text()`); collecting the
 * chunks here does the same job with none of them.
 */
class Exchange implements Dispatcher.DispatchHandler {
  status = 0;
  contentType = '';
  #chunks: Buffer[] = [];
  #size = 0;
  #controller: Dispatcher.DispatchController | null = null;
  #timedOut = false;
  #settled = false;
  readonly #timer: NodeJS.Timeout;
  readonly #resolve: (reply: TransportReply) => void;
  readonly #reject: (error: Error) => void;

  constructor(timeoutMs: number, resolve: (reply: TransportReply) => void, reject: (error: Error) => void) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#timer = setTimeout(() => { this.#timeout(); }, timeoutMs);
  }

  /**
   * Aborting closes the request's connection: a late answer cannot be read as the next one's. A
   * request still waiting for a connection is refused at its deadline and aborted before it is
   * written, once undici hands it one.
   */
  #timeout(): void {
    this.#timedOut = true;
    if (this.#controller === null) this.#fail(null);
    else this.#controller.abort(timeoutReason());
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#reject(failureOf(error, this.#timedOut));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.#timedOut) {
      controller.abort(timeoutReason());
      return;
    }
    this.#controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // 1xx answers (100 Continue) come before the final one.
    if (statusCode < 200) return;
    this.status = statusCode;
    const contentType = headers[CONTENT_TYPE];
    // A repeated content-type reads as none, as it did through request()'s header object.
    this.contentType = typeof contentType === 'string' ? contentType : '';
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // Longer answers never get here: the Agent's maxResponseSize closes the connection first.
    this.#size += chunk.length;
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    const text = decodeUtf8(this.#chunks, this.#size);
    const reply: TransportReply = { status: this.status, contentType: this.contentType, text };
    // undici frees a connection for its next request one event-loop turn after an answer (it
    // first checks that nothing unasked-for arrived on it); a caller's next call made before
    // then would open a second connection, so the answer is handed over after that turn. undici
    // queues that turn after this call returns: ours is queued once its code has run.
    queueMicrotask(() => setImmediate(this.#resolve, reply));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#fail(error);
  }
}

/** The body as UTF-8 text, a leading byte order mark dropped (as undici's `body.text()` reads it). */
function decodeUtf8(chunks: readonly Buffer[], size: number): string {
  if (size === 0) return '';
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
  const start = bytes.length > 2 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return bytes.toString('utf8', start);
}

/** The default transport: undici's dispatcher on one keep-alive Agent, held for the client's life. */
export function undiciTransport(): Transport {
  let agent = new Agent(agentOptions(true));
  const targets = new Map<string, Target>();

  function post(url: string, headers: Record<string, string>, body: string | Buffer, timeoutMs: number): Promise<TransportReply> {
    return new Promise((resolve, reject) => {
      let target = targets.get(url);
      if (target === undefined) {
        try {
          target = parseTarget(url);
        } catch (error) {
          reject(failureOf(error, false));
          return;
        }
        if (targets.size >= MAX_TARGETS) targets.clear();
        targets.set(url, target);
      }
      agent.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers, body }, new Exchange(timeoutMs, resolve, reject));
    });
  }

  return {
    async send({ url, headers, body, timeoutMs }) {
      // merged(): on Node 20 each key a spread adds costs about a microsecond.
      if (typeof body === 'string') return post(url, merged(FIXED_HEADERS, headers), body, timeoutMs);
      const { bytes, contentType } = await encodeFormData(body);
      return post(url, { ...FIXED_HEADERS, ...headers, 'content-type': contentType }, bytes, timeoutMs);
    },
    close() {
      // Idle connections go now, busy ones once their answer is in; later requests still work,
      // each on a connection of its own that is closed after its answer instead of pooled.
      const closing = agent;
      agent = new Agent(agentOptions(false));
      closing.close().catch(() => undefined);
    },
  };
}
