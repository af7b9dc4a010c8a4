/**
 * The client's own transport (undici) against a real node:http server that counts connections:
 * keep-alive reuse, deadlines, refused and dropped connections, the reply limit, refusals,
 * redirects left alone, https, and close().
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ProtocolError, TransportError } from '../../../server/errors.js';
import { createGatewayClient, type GatewayClient, type GatewayClientOptions } from '../../../server/gateway/client.js';
import { MAX_REPLY_BYTES, undiciTransport } from '../../../server/gateway/transport.js';
import { AID, closedPortUrl, directInput, KEY, MID, sha } from './support.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface CountingServer {
  url: string;
  /** Connections accepted so far. */
  connections: number;
  /** Connections still open on the server's side. */
  open: Set<Socket>;
  /** Requests seen, per path. */
  paths: string[];
  /** Each request's connection, in order. */
  sockets: Socket[];
  handle(handler: Handler): void;
  close(): Promise<void>;
}

async function startCountingServer(): Promise<CountingServer> {
  let handler: Handler = (_req, res) => res.end();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.paths.push(req.url ?? '');
      state.sockets.push(req.socket);
      handler(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  server.on('connection', (socket: Socket) => {
    state.connections++;
    state.open.add(socket);
    socket.on('close', () => state.open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const state: CountingServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: 0,
    open: new Set(),
    paths: [],
    sockets: [],
    handle: (next) => {
      handler = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    },
  };
  return state;
}

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const okQuery = { return_status: '1', return_message: 'OK', encryption_data: sha([MID, AID]), orders_list: [] };

/** Resolves once `socket` has closed, or fails the test after `withinMs`. */
function closed(socket: Socket | undefined, withinMs = 2000): Promise<void> {
  if (socket === undefined) return Promise.reject(new Error('no socket'));
  if (socket.destroyed) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error('socket still open')); }, withinMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

let server: CountingServer;
const clients: GatewayClient[] = [];
function client(options: Partial<GatewayClientOptions> = {}): GatewayClient {
  const made = createGatewayClient({ baseUrl: server.url, merchantId: MID, accountId: AID, signKey: KEY, readRetries: { attempts: 3, baseDelayMs: 1 }, ...options });
  clients.push(made);
  return made;
}

beforeAll(async () => {
  server = await startCountingServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  for (const made of clients.splice(0)) made.close();
  // Each test starts with no connection left from the one before.
  for (const socket of server.open) socket.destroy();
  await Promise.all([...server.open].map((socket) => closed(socket)));
  server.connections = 0;
  server.paths.length = 0;
  server.sockets.length = 0;
  server.handle((_req, res) => res.end());
});

describe('keep-alive', () => {
  it('sends sequential calls over one connection', async () => {
    server.handle((_req, res) => { json(res, 200, okQuery); });
    const gateway = client();
    await gateway.queries.transactions({ orders: ['A'] });
    await gateway.queries.transactions({ orders: ['B'] });
    await gateway.queries.transactions({ orders: ['C'] });
    expect(server.paths).toEqual(['/v1/retrievalTrans', '/v1/retrievalTrans', '/v1/retrievalTrans']);
    expect(server.connections).toBe(1);
  });

  it('sends a plain POST with its length and asks to keep the connection', async () => {
    let seen: IncomingMessage | undefined;
    server.handle((req, res) => {
      seen = req;
      json(res, 200, okQuery);
    });
    await client().queries.transactions({ orders: ['A'] });
    expect(seen?.method).toBe('POST');
    expect(seen?.headers).toMatchObject({ connection: 'keep-alive', 'content-type': 'application/x-www-form-urlencoded' });
    expect(seen?.headers['content-length']).toMatch(/^\d+$/);
    expect(seen?.headers['transfer-encoding']).toBeUndefined();
  });

  it('opens a new connection when the server closed the idle one', async () => {
    server.handle((_req, res) => { json(res, 200, okQuery); });
    const gateway = client();
    await gateway.queries.transactions({ orders: ['A'] });
    const first = server.sockets[0];
    first?.destroy();
    await closed(first);
    await gateway.queries.transactions({ orders: ['B'] });
    expect(server.connections).toBe(2);
  });
});

describe('a connection dropped without an answer', () => {
  /** Answers the first request, then drops the connection on the second, reused one. */
  const dropReused: Handler = (req, res) => {
    if (server.paths.length === 1) json(res, 200, okQuery);
    else if (server.paths.length === 2) req.socket.destroy();
    else json(res, 200, okQuery);
  };

  it('leaves a money-moving call unknown and never sends it again', async () => {
    server.handle(dropReused);
    const gateway = client();
    await gateway.queries.transactions({ orders: ['A'] });
    const error: unknown = await gateway.payments.authorise(directInput('DROP-1')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'ERR_TRANSPORT_CONNECTION', outcomeUnknown: true, details: { systemCode: 'ECONNRESET' } });
    expect(server.paths).toEqual(['/v1/retrievalTrans', '/v1/authorise']);
  });

  it('re-sends a read on a fresh connection', async () => {
    server.handle(dropReused);
    const gateway = client();
    await gateway.queries.transactions({ orders: ['A'] });
    await expect(gateway.queries.transactions({ orders: ['B'] })).resolves.toBeDefined();
    expect(server.paths).toHaveLength(3);
    expect(server.connections).toBe(2);
  });
});

describe('deadline', () => {
  it('maps a timeout to ERR_TRANSPORT_TIMEOUT and closes the connection', async () => {
    server.handle(() => undefined);
    const started = Date.now();
    const error: unknown = await client({ timeoutMs: 300 }).payments.authorise(directInput('SLOW-1')).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'ERR_TRANSPORT_TIMEOUT', outcomeUnknown: true, details: { operation: 'authorise', orderNo: 'SLOW-1', timeoutMs: 300 } });
    await closed(server.sockets[0]);
  });

  it('reads the same whichever transport timed out', async () => {
    server.handle(() => undefined);
    const own: unknown = await client({ timeoutMs: 200 }).payments.authorise(directInput('SLOW-2')).catch((e: unknown) => e);
    const viaFetch: unknown = await client({ timeoutMs: 200, fetch: (input, init) => fetch(input, init) }).payments.authorise(directInput('SLOW-2')).catch((e: unknown) => e);
    expect(own).toBeInstanceOf(TransportError);
    expect(viaFetch).toBeInstanceOf(TransportError);
    const { message, details, outcomeUnknown } = own as TransportError;
    expect({ message, details, outcomeUnknown }).toEqual({
      message: (viaFetch as TransportError).message,
      details: (viaFetch as TransportError).details,
      outcomeUnknown: (viaFetch as TransportError).outcomeUnknown,
    });
  });

  it('gives a slow answer within the deadline its full time', async () => {
    server.handle((_req, res) => {
      setTimeout(() => { json(res, 200, okQuery); }, 300);
    });
    await expect(client({ timeoutMs: 2000 }).queries.transactions({ orders: ['A'] })).resolves.toBeDefined();
  });
});

describe('connection failures', () => {
  it('maps a refused connection to ERR_TRANSPORT_CONNECTION with ECONNREFUSED', async () => {
    const gateway = client({ baseUrl: await closedPortUrl() });
    await expect(gateway.payments.authorise(directInput('REFUSED-1'))).rejects.toMatchObject({
      code: 'ERR_TRANSPORT_CONNECTION',
      outcomeUnknown: true,
      details: { systemCode: 'ECONNREFUSED' },
    });
    await expect(gateway.queries.transactions({ orders: ['A'] })).rejects.toMatchObject({
      code: 'ERR_TRANSPORT_CONNECTION',
      outcomeUnknown: false,
      message: expect.stringMatching(/\(ECONNREFUSED\)/) as unknown,
    });
  });
});

describe('answers', () => {
  it('refuses a reply over 1 MiB as ERR_PROTOCOL_MALFORMED and drops the connection', async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('x'.repeat(MAX_REPLY_BYTES + 1));
    });
    const error: unknown = await client().queries.transactions({ orders: ['A'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: 'ERR_PROTOCOL_MALFORMED' });
    await closed(server.sockets[0]);
  });

  it('reads a reply of exactly 1 MiB, split across chunks, as UTF-8', async () => {
    const text = `${'é'.repeat(1000)}${'x'.repeat(MAX_REPLY_BYTES - 2000)}`;
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      const bytes = Buffer.from(text);
      res.write(bytes.subarray(0, 1001));
      res.end(bytes.subarray(1001));
    });
    const transport = undiciTransport();
    try {
      const reply = await transport.send({ url: `${server.url}/v1/x`, headers: {}, body: 'a=1', timeoutMs: 5000 });
      expect(reply).toEqual({ status: 200, contentType: 'text/plain; charset=utf-8', text });
    } finally {
      transport.close();
    }
  });

  it('maps a non-2xx answer through the refusal codes', async () => {
    server.handle((_req, res) => { json(res, 400, { code: 'I0013', source: 'encryption_data', message: 'bad signature' }); });
    await expect(client().payments.authorise(directInput('REF-1'))).rejects.toMatchObject({ code: 'ERR_GATEWAY_BAD_SIGNATURE', httpStatus: 400, gatewayCode: 'I0013' });
    server.handle((_req, res) => { json(res, 404, {}); });
    await expect(client().payments.authorise(directInput('REF-2'))).rejects.toMatchObject({ code: 'ERR_GATEWAY_NOT_FOUND', httpStatus: 404 });
  });

  it('does not follow a redirect', async () => {
    server.handle((_req, res) => {
      res.writeHead(302, { location: '/elsewhere' });
      res.end();
    });
    await expect(client().payments.authorise(directInput('MOVED-1'))).rejects.toMatchObject({ code: 'ERR_GATEWAY_HTTP', httpStatus: 302 });
    expect(server.paths).toEqual(['/v1/authorise']);
  });

  it('sends multipart bodies with their boundary', async () => {
    const fields: Record<string, unknown> = {};
    server.handle((req, res, body) => {
      void new Response(body, { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData().then((form) => {
        form.forEach((value, key) => {
          fields[key] = value;
        });
        json(res, 200, { merchant_id: MID, account_id: AID, request_id: 'R-1', return_status: '1', return_message: 'OK', payment_methods: [] });
      });
    });
    await client().optimise({ request_id: 'R-1', amount: 1999, currency: 'BRL', shopper_email: 'a@b.example', shopper_country: 'BR', platform: 'WEB' });
    expect(fields).toMatchObject({ merchant_id: MID, request_id: 'R-1', amount: '19.99' });
  });
});

describe('close()', () => {
  it('closes idle connections at once', async () => {
    server.handle((_req, res) => { json(res, 200, okQuery); });
    const gateway = client();
    await gateway.queries.transactions({ orders: ['A'] });
    expect(server.open.size).toBe(1);
    gateway.close();
    await closed(server.sockets[0]);
    expect(server.open.size).toBe(0);
  });

  it('lets a call under way finish, then closes its connection', async () => {
    // The first call's answer is held until close() has been called; later calls are answered at once.
    const held: { answer?: () => void } = {};
    server.handle((_req, res) => {
      if (held.answer === undefined) held.answer = () => { json(res, 200, okQuery); };
      else json(res, 200, okQuery);
    });
    const gateway = client();
    const pending = gateway.queries.transactions({ orders: ['A'] });
    // Under way once the server has read it (polled: a busy machine may take a while to send it).
    await vi.waitFor(() => { expect(held.answer).toBeDefined(); }, { timeout: 10_000, interval: 5 });
    gateway.close();
    held.answer!();
    await expect(pending).resolves.toBeDefined();
    await closed(server.sockets[0]);
    // Still usable afterwards, without pooling the connection.
    await expect(gateway.queries.transactions({ orders: ['B'] })).resolves.toBeDefined();
    await closed(server.sockets[1]);
  });
});

describe('https', () => {
  it('speaks TLS to an https base URL', async () => {
    const first = new Promise<Buffer>((resolve) => {
      const tcp = createTcpServer((socket) => {
        socket.once('data', (chunk: Buffer) => {
          resolve(chunk);
          socket.destroy();
          tcp.close();
        });
      });
      tcp.listen(0, '127.0.0.1', () => {
        const port = (tcp.address() as AddressInfo).port;
        void client({ baseUrl: `https://127.0.0.1:${port}` }).queries.transactions({ orders: ['A'] }).catch(() => undefined);
      });
    });
    // 0x16: a TLS handshake record (the ClientHello).
    expect((await first)[0]).toBe(0x16);
  });

  const certificate = ((): { key: string; cert: string } | undefined => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-tls-'));
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
        '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
      return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
    } catch {
      return undefined;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();

  // Needs the openssl command to make a throw-away certificate; node:crypto cannot sign one.
  it.skipIf(certificate === undefined)('checks the server certificate', async () => {
    const tls = createHttpsServer({ ...certificate }, (_req, res) => { json(res, 200, okQuery); });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    try {
      const port = (tls.address() as AddressInfo).port;
      await expect(client({ baseUrl: `https://127.0.0.1:${port}` }).queries.transactions({ orders: ['A'] })).rejects.toMatchObject({
        code: 'ERR_TRANSPORT_CONNECTION',
        details: { systemCode: 'DEPTH_ZERO_SELF_SIGNED_CERT' },
      });
    } finally {
      tls.closeAllConnections();
      await new Promise<void>((resolve) => tls.close(() => { resolve(); }));
    }
  });
});
