/**
 * The notifier's HTTP client: one form POST over node:http(s) with keep-alive connections.
 * fetch did this before at several times the CPU per delivery; the receiver sees the same
 * request (same headers) and the ledger the same outcomes (HTTP status, or the same error texts).
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** The headers fetch sent with every notification, in its order, so receivers see no difference. */
function headersFor(host: string, body: string): Record<string, string | number> {
  return {
    host,
    connection: 'keep-alive',
    'content-type': 'application/x-www-form-urlencoded',
    accept: '*/*',
    'accept-language': '*',
    'sec-fetch-mode': 'cors',
    'user-agent': 'node',
    'accept-encoding': 'gzip, deflate',
    'content-length': Buffer.byteLength(body),
  };
}

/** Thrown for any failure before an answer arrived; the message is what fetch reported. */
export class PostFailed extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PostFailed';
  }
}

/**
 * At most this many connections per receiver, as a gateway's delivery workers are bounded: past
 * it, deliveries wait for a free connection instead of opening more. Unbounded, a receiver whose
 * event loop is saturated (it accepts one connection per turn) saw every delivery that found no
 * free connection open a new one, which waited in its listen queue, which made more deliveries
 * wait: a flood of connections the receiver could not accept (docs/reliability.md#load).
 */
export const MAX_CONNECTIONS_PER_RECEIVER = 64;

/** Keep-alive connections shared by the deliveries of one notifier. */
export class FormPoster {
  readonly #http = new HttpAgent({ keepAlive: true, maxSockets: MAX_CONNECTIONS_PER_RECEIVER });
  readonly #https = new HttpsAgent({ keepAlive: true, maxSockets: MAX_CONNECTIONS_PER_RECEIVER });

  /**
   * POSTs `body` to `url` without following redirects. Resolves with the HTTP status once the
   * answer has been read to its end (or broke off after its status line); rejects with
   * PostFailed when no answer came (`signal` aborting included).
   */
  post(url: string, body: string, signal: AbortSignal): Promise<number> {
    let target: URL;
    try {
      target = new URL(url);
    } catch (cause) {
      return Promise.reject(new PostFailed(`Failed to parse URL from ${url}`, { cause }));
    }
    if (target.username !== '' || target.password !== '') {
      return Promise.reject(new PostFailed(`Request cannot be constructed from a URL that includes credentials: ${url}`));
    }
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:') return Promise.reject(new PostFailed('fetch failed'));
    return new Promise((resolve, reject) => {
      let status: number | null = null;
      const answered = (res: IncomingMessage): void => {
        const code = res.statusCode ?? 0;
        status = code;
        const done = (): void => {
          resolve(code);
        };
        // Read to the end so the connection can carry the next delivery.
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
        res.resume();
      };
      const options = { method: 'POST', agent: secure ? this.#https : this.#http, headers: headersFor(target.host, body), signal };
      let req: ClientRequest;
      try {
        req = secure ? httpsRequest(target, options, answered) : httpRequest(target, options, answered);
      } catch (cause) {
        reject(new PostFailed('fetch failed', { cause }));
        return;
      }
      req.on('error', (cause) => {
        // After the status line, a broken answer still counts as that answer.
        if (status !== null) resolve(status);
        else reject(new PostFailed('fetch failed', { cause }));
      });
      req.end(body);
    });
  }

  /** Closes idle connections; requests in flight are aborted by their signals. */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}
