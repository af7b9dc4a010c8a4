/**
 * readPostedBody reading the stream itself: the whole body in order, repeated and oddly named
 * fields, a body that grows past the limit without declaring its length, and a sender that goes
 * away mid-body.
 */
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpError, readPostedBody } from '../../../server/http/posted-body.js';

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = null;
});

/** A server whose one route reports what readPostedBody gave (or threw) to `seen`. */
async function start(limit: number, seen: (outcome: { fields?: Record<string, string>; error?: unknown }) => void): Promise<number> {
  const app = express();
  app.post('/in', async (req, res) => {
    try {
      const { fields } = await readPostedBody(req, limit);
      seen({ fields });
      res.json(fields);
    } catch (error) {
      seen({ error });
      if (!res.destroyed) res.status(error instanceof HttpError ? error.status : 500).end();
    }
  });
  server = createServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

describe('readPostedBody over a raw stream', () => {
  it('joins a body sent in many chunks', async () => {
    let outcome: { fields?: Record<string, string> } = {};
    const port = await start(64 * 1024, (o) => (outcome = o));
    const req = request({ port, method: 'POST', path: '/in', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    for (const part of ['a=1', '&b=', 'two', '&c=', '3'.repeat(5000)]) req.write(part);
    req.end();
    const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
    res.resume();
    await once(res, 'end');
    expect(res.statusCode).toBe(200);
    expect(outcome.fields).toEqual({ a: '1', b: 'two', c: '3'.repeat(5000) });
  });

  it('keeps the first of a repeated field, and fields named like Object.prototype members', async () => {
    let outcome: { fields?: Record<string, string> } = {};
    const port = await start(64 * 1024, (o) => (outcome = o));
    const req = request({ port, method: 'POST', path: '/in', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    req.end('order_no=A-1&order_no=B-2&constructor=c&toString=t&hasOwnProperty=h');
    const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
    res.resume();
    await once(res, 'end');
    expect(outcome.fields).toEqual({ order_no: 'A-1', constructor: 'c', toString: 't', hasOwnProperty: 'h' });

    // The same for a multipart body.
    const form = new FormData();
    const parts: [string, string][] = [['order_no', 'A-1'], ['order_no', 'B-2'], ['constructor', 'c'], ['toString', 't']];
    for (const [name, value] of parts) form.append(name, value);
    const multipart = new Request('http://x/', { method: 'POST', body: form });
    const req2 = request({ port, method: 'POST', path: '/in', headers: { 'content-type': multipart.headers.get('content-type')! } });
    req2.end(Buffer.from(await multipart.arrayBuffer()));
    const [res2] = (await once(req2, 'response')) as [import('node:http').IncomingMessage];
    res2.resume();
    await once(res2, 'end');
    expect(outcome.fields).toEqual({ order_no: 'A-1', constructor: 'c', toString: 't' });
  });

  it('refuses a chunked body that grows past the limit', async () => {
    const outcomes: { error?: unknown }[] = [];
    const port = await start(1024, (o) => outcomes.push(o));
    const req = request({ port, method: 'POST', path: '/in', headers: { 'content-type': 'text/plain' } });
    req.on('error', () => undefined);
    req.write('x'.repeat(800));
    req.write('x'.repeat(800));
    // Polled, not slept: on a busy machine the server may take longer than any fixed pause.
    await vi.waitFor(() => { expect(outcomes.length).toBeGreaterThan(0); }, { timeout: 10_000, interval: 20 });
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]?.error).toBeInstanceOf(HttpError);
    expect((outcomes[0]?.error as HttpError).status).toBe(413);
    req.destroy();
  });

  it('gives up on a sender that goes away mid-body', async () => {
    const outcomes: { error?: unknown }[] = [];
    const port = await start(64 * 1024, (o) => outcomes.push(o));
    const arrived = once(server!, 'request');
    const req = request({ port, method: 'POST', path: '/in', headers: { 'content-type': 'text/plain', 'content-length': '1000' } });
    req.on('error', () => undefined);
    req.write('x'.repeat(100));
    // Gone once the server has the request under way, however long that takes on a busy machine.
    await arrived;
    req.destroy();
    await vi.waitFor(() => { expect(outcomes.length).toBeGreaterThan(0); }, { timeout: 10_000, interval: 20 });
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]?.error).toBeDefined();
  });
});
