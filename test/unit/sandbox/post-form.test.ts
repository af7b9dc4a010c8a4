/**
 * The notifier's client bounds its connections per receiver: a burst of deliveries waits for a
 * free connection instead of opening one each (a slow receiver could not accept them all).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { FormPoster, MAX_CONNECTIONS_PER_RECEIVER } from '../../../server/sandbox/post-form.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

test(`a burst of deliveries shares at most ${String(MAX_CONNECTIONS_PER_RECEIVER)} connections, and every one is answered`, async () => {
  const sockets = new Set<unknown>();
  let requests = 0;
  server = createServer((req, res) => {
    sockets.add(req.socket);
    requests++;
    req.resume();
    // Answered a little later, so the burst overlaps.
    setTimeout(() => res.writeHead(200).end('ok'), 20);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/notify`;
  const poster = new FormPoster();
  const burst = MAX_CONNECTIONS_PER_RECEIVER * 3;
  const statuses = await Promise.all(Array.from({ length: burst }, (_, i) => poster.post(url, `n=${String(i)}`, AbortSignal.timeout(30_000))));
  poster.close();
  expect(statuses).toEqual(Array.from({ length: burst }, () => 200));
  expect(requests).toBe(burst);
  expect(sockets.size).toBeLessThanOrEqual(MAX_CONNECTIONS_PER_RECEIVER);
  expect(sockets.size).toBeGreaterThan(1);
});
