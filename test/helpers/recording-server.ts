/**
 * A real HTTP server on port 0 that records every request (method, path, headers, raw body) and
 * answers with scripted replies, in order, or with a fallback. A reply can also hang (to force
 * a client timeout) or drop the connection. `close()` ends everything it opened.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  body: string;
}

export type ScriptedReply =
  | { status?: number; headers?: Record<string, string>; body?: string }
  | { hang: true }
  | { destroy: true };

export type Responder = (request: RecordedRequest) => ScriptedReply;

export interface RecordingServer {
  url: string;
  requests: RecordedRequest[];
  /** Queues replies used one per request, before the fallback. */
  reply(...replies: (ScriptedReply | Responder)[]): void;
  /** The reply once the queue is empty (default: 500 "no scripted reply"). */
  setFallback(responder: Responder | ScriptedReply): void;
  /**
   * Resolves once `count` requests have arrived. A client that times out may give up before
   * its request is recorded here; tests wait for it so nothing spills into the next test.
   */
  waitForRequests(count: number, withinMs?: number): Promise<void>;
  /** Forgets recorded requests, queued replies and the fallback. */
  reset(): void;
  close(): Promise<void>;
}

export const xmlReply = (body: string, status = 200): ScriptedReply => ({ status, headers: { 'content-type': 'application/xml' }, body });
export const jsonReply = (body: unknown, status = 200): ScriptedReply => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => { resolve(Buffer.concat(chunks).toString('utf8')); });
    req.on('error', reject);
  });
}

export async function startRecordingServer(): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  let queue: (ScriptedReply | Responder)[] = [];
  const defaultFallback: ScriptedReply = { status: 500, body: 'no scripted reply' };
  let fallback: Responder | ScriptedReply = defaultFallback;
  const hanging = new Set<ServerResponse>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: await readBody(req) };
    requests.push(recorded);
    const next = queue.shift() ?? fallback;
    const reply = typeof next === 'function' ? next(recorded) : next;
    if ('hang' in reply) {
      hanging.add(res);
      return;
    }
    if ('destroy' in reply) {
      req.socket.destroy();
      return;
    }
    res.writeHead(reply.status ?? 200, reply.headers ?? { 'content-type': 'application/json' });
    res.end(reply.body ?? '');
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => queue.push(...replies),
    setFallback: (responder) => {
      fallback = responder;
    },
    waitForRequests: async (count, withinMs = 10_000) => {
      const deadline = Date.now() + withinMs;
      while (requests.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} requests, got ${requests.length}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    reset: () => {
      requests.length = 0;
      queue = [];
      fallback = defaultFallback;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      });
    },
  };
}
