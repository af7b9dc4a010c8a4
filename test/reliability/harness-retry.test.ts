/**
 * The scenarios' browser resends a request that got no answer only when that is harmless: one
 * whose connection never opened (nothing was sent), or one whose connection broke after it was
 * sent when the step is idempotent. Real HTTP: a server that drops the first connection of each
 * request it reads.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { Browser, RequestError } from '../helpers/browser.js';

let server: Server;
let base: string;
/** Requests the server read, by method and path. */
let seen: string[];

beforeEach(async () => {
  seen = [];
  server = createServer((req, res) => {
    const key = `${req.method ?? ''} ${req.url ?? ''}`;
    seen.push(key);
    // The first time a request is read, its connection is cut before any answer.
    if (seen.filter((k) => k === key).length === 1) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const idempotent = (method: string, url: URL): boolean => method === 'GET' || url.pathname.startsWith('/return/');

test('a page read whose connection broke is read again', async () => {
  const retried: string[] = [];
  const browser = new Browser({ retry: { idempotent, onRetry: (code, method) => retried.push(`${method} ${code}`) } });
  const page = await browser.get(`${base}/pay`);
  expect(page.status).toBe(200);
  expect(seen).toEqual(['GET /pay', 'GET /pay']);
  expect(retried).toEqual(['GET UND_ERR_SOCKET']);
});

test('an idempotent POST (a return) is sent again; any other POST is not', async () => {
  const browser = new Browser({ retry: { idempotent } });
  expect((await browser.request('POST', `${base}/return/t`, { a: '1' })).status).toBe(200);
  expect(seen).toEqual(['POST /return/t', 'POST /return/t']);

  const failure = await browser.request('POST', `${base}/pay/t`, { card: 'x' }).catch((err: unknown) => err);
  expect(failure).toBeInstanceOf(RequestError);
  expect((failure as RequestError).code).toBe('UND_ERR_SOCKET');
  expect((failure as RequestError).message).toContain('POST /pay/t got no answer (UND_ERR_SOCKET)');
  // Read once by the server, never sent again.
  expect(seen.filter((k) => k === 'POST /pay/t')).toHaveLength(1);
});

test('a request whose connection never opened is resent whatever its method, up to the attempts allowed', async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  const retried: string[] = [];
  const browser = new Browser({ retry: { attempts: 2, idempotent: () => false, onRetry: (code) => retried.push(code) } });
  const failure = await browser.request('POST', `${base}/pay/t`, { card: 'x' }).catch((err: unknown) => err);
  expect((failure as RequestError).code).toBe('ECONNREFUSED');
  expect(retried).toEqual(['ECONNREFUSED', 'ECONNREFUSED']);
  // Re-listen so afterEach can close it.
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

test('without a retry policy nothing is resent', async () => {
  const failure = await new Browser().get(`${base}/pay`).catch((err: unknown) => err);
  expect((failure as RequestError).code).toBe('UND_ERR_SOCKET');
  expect(seen).toEqual(['GET /pay']);
});
