/**
 * How much of what a request allocates survives the young generation and is promoted to the old
 * one, for the same trivial POST route served four ways: plain `node:http`; `node:http` plus
 * the one step Express's `app.handle` adds to every request (`Object.setPrototypeOf` of req and
 * res onto the app's request and response objects); an Express 5 app on `http.createServer`
 * (`app.listen`); and the same app on the kit's `createAppServer`, whose requests are born on the
 * app's prototypes so that step changes nothing. Promoted garbage is
 * what the old generation fills with between full collections, and V8 sizes the old generation's
 * next limit by how fast it fills, so this share drives the RSS peak of any Express server under
 * load (docs/performance.md, "Memory"). Each way runs in its own process with
 * `--trace-gc-nvp`, 32 keep-alive connections, a few seconds:
 *
 *   npx tsx bench/express-promotion.ts          prints one JSON line per way
 */
import { spawn } from 'node:child_process';
import { createServer, IncomingMessage, ServerResponse, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import express from 'express';
import { createAppServer } from '../server/http/app-server.js';

const WAYS = ['node-http', 'set-prototype', 'express', 'app-server'] as const;
type Way = (typeof WAYS)[number];
const SECONDS = 4;
const CONNECTIONS = 32;

/** Reads the body, answers on the next turn (as a route that waits for something would). */
const answer: RequestListener = (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    setImmediate(() => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('OK');
    });
  });
};

function listener(way: Way): RequestListener {
  if (way === 'node-http') return answer;
  if (way === 'set-prototype') {
    // What express/lib/application.js does to every request before its router runs.
    const request = Object.create(IncomingMessage.prototype) as object;
    const response = Object.create(ServerResponse.prototype) as object;
    return (req, res) => {
      Object.setPrototypeOf(req, request);
      Object.setPrototypeOf(res, response);
      answer(req, res);
    };
  }
  const app = express();
  app.post('/', answer);
  return app;
}

/** The same Express app on the kit's `createAppServer`: requests born on the app's prototypes. */
function createAppServerOf(): Server {
  const app = express();
  app.post('/', answer);
  return createAppServer(app);
}

async function serve(way: Way): Promise<void> {
  const server = way === 'app-server' ? createAppServerOf() : createServer(listener(way));
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`PORT ${String((server.address() as AddressInfo).port)}\n`);
  process.on('SIGTERM', () => process.exit(0));
}

/** Sums what each scavenge reports (--trace-gc-nvp: `gc=s … allocated=… promoted=…`). */
function scavenges(trace: string): { allocated: number; promoted: number; pauseMs: number; count: number } {
  const total = { allocated: 0, promoted: 0, pauseMs: 0, count: 0 };
  for (const line of trace.split('\n')) {
    if (!line.includes(' gc=s ')) continue;
    const field = (name: string): number => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
    total.allocated += field('allocated');
    total.promoted += field('promoted');
    total.pauseMs += field('pause');
    total.count++;
  }
  return total;
}

async function measure(way: Way): Promise<Record<string, number | string>> {
  const child = spawn(process.execPath, [...process.execArgv, '--trace-gc-nvp', fileURLToPath(import.meta.url), 'serve', way], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /^PORT (\d+)$/m.exec(out);
      if (m?.[1] !== undefined) resolve(m[1]);
    });
    child.once('exit', () => { reject(new Error(`the ${way} server exited before listening`)); });
  });
  const before = out.length;
  const result = await autocannon({ url: `http://127.0.0.1:${port}/`, requests: [{ method: 'POST', body: 'a=1&b=2' }], connections: CONNECTIONS, duration: SECONDS });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  const gc = scavenges(out.slice(before));
  const MB = 1024 * 1024;
  return {
    way,
    requests_per_s: Math.round(result.requests.average),
    allocated_mb: Math.round(gc.allocated / MB),
    promoted_mb: Math.round(gc.promoted / MB),
    promoted_pct: +((100 * gc.promoted) / Math.max(1, gc.allocated)).toFixed(1),
    scavenge_ms_per_1000_requests: +((1000 * gc.pauseMs) / Math.max(1, result.requests.total)).toFixed(2),
  };
}

if (process.argv[2] === 'serve') {
  await serve(process.argv[3] as Way);
} else {
  for (const way of WAYS) process.stdout.write(`${JSON.stringify(await measure(way))}\n`);
}
