/**
 * How one gateway request travels: POST a body, read at most 1 MiB of answer, within a deadline.
 * The default sends over node:http(s) with one keep-alive agent per client, so nothing per request
 * is built twice (no Request/Headers objects, web streams or abort signals). A caller's own fetch
 * still works through the fetch transport. Neither follows redirects: a 3xx is an answer. Neither
 * ever sends a request twice; whether a failure may be retried is the core's decision.
 */
// Measured (bench/machinery.ts transport): fetch costs about 3× this transport's CPU per call;
// undici's request API on a keep-alive Agent costs less (0.5–0.8×) and is the planned replacement
// (docs/performance.md, "Machinery").
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { KitError, ProtocolError } from '../errors.js';
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

/** Sends through a caller's fetch, as the client always did before it had its own transport. */
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
const MAX_SOCKETS = 64;
/**
 * Idle connections close after this long, or 1 s before the server's own Keep-Alive timeout when
 * it announces a shorter one, so a request rarely meets a connection the server is closing.
 * Same as fetch's default.
 */
const IDLE_SOCKET_MS = 4_000;
/** What fetch sent besides the body's headers, less its browser-only and compression headers. */
const FIXED_HEADERS: Readonly<Record<string, string>> = { accept: '*/*', 'user-agent': 'node' };

/** Multipart is rare (optimise): fetch's own encoder gives the same bytes and boundary as before. */
async function encodeFormData(form: FormData): Promise<{ bytes: Buffer; contentType: string }> {
  const encoded = new Response(form);
  return { bytes: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') ?? 'multipart/form-data' };
}

/**
 * The default transport for a client whose gateway lives at `baseUrl`: one keep-alive agent,
 * most recently used connection first, so a quiet period lets the others expire.
 */
export function nodeTransport(baseUrl: string): Transport {
  const secure = new URL(baseUrl).protocol === 'https:';
  const agentOptions = { keepAlive: true, maxSockets: MAX_SOCKETS, scheduling: 'lifo' as const, timeout: IDLE_SOCKET_MS };
  const agent = secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  const request = secure ? httpsRequest : httpRequest;
  // Parsed once per operation URL: the base URL is fixed, so this holds one entry per operation.
  const targets = new Map<string, RequestOptions>();
  const targetOf = (url: string): RequestOptions => {
    let target = targets.get(url);
    if (target === undefined) {
      target = { ...urlToHttpOptions(new URL(url)), method: 'POST', agent };
      targets.set(url, target);
    }
    return target;
  };

  function post(target: RequestOptions, headers: OutgoingHttpHeaders, payload: string | Buffer, timeoutMs: number): Promise<TransportReply> {
    return new Promise((resolve, reject) => {
      let settled = false;
      let timedOut = false;
      const req = request({ ...target, headers });
      // Destroying the request closes its connection: a late answer cannot be read as the next one's.
      const timer = setTimeout(() => {
        timedOut = true;
        fail(timeoutReason());
        req.destroy();
      }, timeoutMs);
      function fail(error: unknown): void {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error instanceof KitError ? error : new TransportFailure(timedOut, error));
      }
      req.on('error', fail);
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_REPLY_BYTES) {
            fail(replyTooLarge());
            req.destroy();
            return;
          }
          chunks.push(chunk);
        });
        // A connection lost mid-answer ('aborted', ECONNRESET).
        res.on('error', fail);
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? '', text: Buffer.concat(chunks, size).toString('utf8') });
        });
      });
      req.end(payload);
    });
  }

  return {
    async send({ url, headers, body, timeoutMs }) {
      const target = targetOf(url);
      if (typeof body === 'string') {
        return post(target, { ...FIXED_HEADERS, ...headers, 'content-length': Buffer.byteLength(body) }, body, timeoutMs);
      }
      const { bytes, contentType } = await encodeFormData(body);
      return post(target, { ...FIXED_HEADERS, ...headers, 'content-type': contentType, 'content-length': bytes.length }, bytes, timeoutMs);
    },
    close() {
      // Idle connections go now; busy ones close when their answer is in instead of returning to the pool.
      agent.maxFreeSockets = 0;
      for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
    },
  };
}
