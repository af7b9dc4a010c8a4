/**
 * How one gateway request travels: POST a body, read at most 1 MiB of answer, within a deadline.
 * The default sends with undici's `request` on one keep-alive Agent per client; a caller's own
 * fetch still works through the fetch transport. Neither follows redirects: a 3xx is an answer.
 * Neither ever sends a request twice (undici re-sends only idempotent methods, never a POST);
 * whether a failure may be retried is the core's decision.
 */
// Measured (bench/machinery.ts transport, docs/performance.md "Machinery"): undici's request on a
// keep-alive Agent used 0.73× the CPU per call of the node:http client it replaced, at 2.4× the calls/s.
import { Agent, request } from 'undici';
import { KitError, ProtocolError } from '../errors.js';
import { merged } from '../objects.js';
import type { EncodedBody } from './wire.js';

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
const agentOptions = (keepAlive: boolean): Agent.Options => ({
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

/** The default transport: undici's request on one keep-alive Agent, held for the client's life. */
export function undiciTransport(): Transport {
  let agent = new Agent(agentOptions(true));

  async function post(url: string, headers: Record<string, string>, body: string | Buffer, timeoutMs: number): Promise<TransportReply> {
    // Aborting closes the request's connection: a late answer cannot be read as the next one's.
    const deadline = new AbortController();
    const timer = setTimeout(() => { deadline.abort(timeoutReason()); }, timeoutMs);
    try {
      const reply = await request(url, { dispatcher: agent, method: 'POST', headers, body, signal: deadline.signal });
      const contentType = reply.headers['content-type'];
      const text = await reply.body.text();
      // undici frees a connection for its next request one event-loop turn after an answer (it
      // first checks that nothing unasked-for arrived on it); a caller's next call made before
      // then would open a second connection, so the answer is handed over after that turn.
      await new Promise(setImmediate);
      return { status: reply.statusCode, contentType: typeof contentType === 'string' ? contentType : '', text };
    } catch (error) {
      throw failureOf(error, deadline.signal.aborted);
    } finally {
      clearTimeout(timer);
    }
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
