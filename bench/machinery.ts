/**
 * Each performance layer against its simple alternative, measured in one process with the same
 * concurrency as the benchmark (32 in flight), the two ways alternating round by round so they
 * share whatever the machine is doing. docs/performance.md ("Machinery") quotes the output.
 *
 *   node --import tsx bench/machinery.ts durable [rounds] [seconds]
 *     durable rows/s and CPU per row: the store's write path (group commit, WAL fsync on the
 *     thread pool, checkpoints on a worker: sqlite-durable.ts) against SQLite alone
 *     (synchronous=FULL, auto checkpoint, one transaction per write), and the group commit with
 *     SQLite's own FULL sync and auto checkpoint (the store's backgroundSync/backgroundCheckpoints off).
 *   node --import tsx bench/machinery.ts checkpointer|wal-sync [rounds] [seconds]
 *     the kit's write path against the same without one layer (and, for wal-sync, without both).
 *   node --import tsx bench/machinery.ts transport [rounds] [seconds]
 *     CPU per gateway call and calls/s to a bare upstream in another process (bench/upstream.ts):
 *     the client's transport (undici's dispatcher on a keep-alive Agent, with its deadline and
 *     reply limit) against undici's request with the same deadline and limit (the transport
 *     before), undici's request alone and the global fetch.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { fetchTransport, undiciTransport, type Transport } from '../server/gateway/transport.js';
import { silentLogger } from '../server/logging.js';
import { configureDurability, createDurableWrites } from '../server/orders/stores/sqlite-durable.js';

const [what = 'durable', roundsArg = '3', secondsArg = '3'] = process.argv.slice(2);
const rounds = Number(roundsArg);
const seconds = Number(secondsArg);
const IN_FLIGHT = 32;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** Runs `op` with IN_FLIGHT callers for `seconds`; returns ops/s, CPU µs (all threads) per op and p99 latency (ms). */
async function drive(op: (i: number) => Promise<unknown>): Promise<{ rate: number; cpuUs: number; p99Ms: number }> {
  let done = 0;
  const latencies: number[] = [];
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        await op(next++);
        latencies.push(performance.now() - t);
        done++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  return { rate: done / ((performance.now() - started) / 1000), cpuUs: (used.user + used.system) / done, p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? NaN };
}

type Way = { name: string; open(): Promise<{ op: (i: number) => Promise<unknown>; close(): Promise<void> }> };

async function compare(ways: Way[]): Promise<void> {
  const results = new Map<string, { rate: number[]; cpuUs: number[]; p99Ms: number[] }>(ways.map((w) => [w.name, { rate: [], cpuUs: [], p99Ms: [] }]));
  for (let round = 0; round < rounds; round++) {
    for (const way of ways) {
      const opened = await way.open();
      // A warm-up pass of the same length first (JIT, connections, the checkpoint worker started).
      await drive(opened.op);
      const r = await drive(opened.op);
      await opened.close();
      results.get(way.name)?.rate.push(r.rate);
      results.get(way.name)?.cpuUs.push(r.cpuUs);
      results.get(way.name)?.p99Ms.push(r.p99Ms);
      process.stderr.write(`${way.name} round ${String(round + 1)}: ${r.rate.toFixed(0)}/s, ${r.cpuUs.toFixed(0)} µs CPU each, p99 ${r.p99Ms.toFixed(1)} ms\n`);
    }
  }
  const first = ways[0]?.name ?? '';
  const base = results.get(first);
  const summary = ways.map((w) => {
    const r = results.get(w.name) ?? { rate: [], cpuUs: [], p99Ms: [] };
    return {
      way: w.name,
      per_second: Math.round(median(r.rate)),
      cpu_us: Math.round(median(r.cpuUs)),
      p99_ms: +median(r.p99Ms).toFixed(1),
      rate_vs_first: +(median(r.rate) / median(base?.rate ?? [])).toFixed(2),
      cpu_vs_first: +(median(r.cpuUs) / median(base?.cpuUs ?? [])).toFixed(2),
    };
  });
  process.stdout.write(`${JSON.stringify({ what, rounds, seconds, in_flight: IN_FLIGHT, summary })}\n`);
}

const TABLE = 'CREATE TABLE IF NOT EXISTS rows_ (id INTEGER PRIMARY KEY, k TEXT NOT NULL, body TEXT NOT NULL)';
const BODY = 'x'.repeat(400);

type Setup = 'kit' | 'wal-sync-only' | 'checkpointer-only' | 'group-commit-full' | 'sqlite-full';

function sqliteWay(name: string, setup: Setup): Way {
  return {
    name,
    open() {
      const dir = mkdtempSync(join(tmpdir(), 'machinery-'));
      const db = new Database(join(dir, 'rows.sqlite'));
      let op: (i: number) => Promise<unknown>;
      let closeWrites: () => Promise<void> = () => Promise.resolve();
      if (setup === 'sqlite-full') {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = FULL');
        db.exec(TABLE);
        const insert = db.prepare('INSERT INTO rows_ (k, body) VALUES (?, ?)');
        // Each write commits (and fsyncs) on its own, on the event loop.
        op = (i) => Promise.resolve(insert.run(String(i), BODY));
      } else {
        const options = {
          logger: silentLogger,
          backgroundCheckpoints: setup === 'kit' || setup === 'checkpointer-only',
          backgroundSync: setup === 'kit' || setup === 'wal-sync-only',
        };
        const walSync = configureDurability(db, options);
        db.exec(TABLE);
        const insert = db.prepare('INSERT INTO rows_ (k, body) VALUES (?, ?)');
        const writes = createDurableWrites(db, walSync, options);
        op = (i) => writes.write(() => insert.run(String(i), BODY));
        closeWrites = () => writes.close();
      }
      return Promise.resolve({
        op,
        async close() {
          await closeWrites();
          db.close();
          rmSync(dir, { recursive: true, force: true });
        },
      });
    },
  };
}

function transportWay(name: string, make: (base: string) => Transport, base: string): Way {
  const form = `merchant_id=701001&account_id=701001010&order_no=P-0000001&amount=25.00&currency=USD&${'k=v&'.repeat(120)}encryption_data=${'a'.repeat(64)}`;
  return {
    name,
    open() {
      const transport = make(base);
      const url = `${base}/v1/authorise`;
      return Promise.resolve({
        op: () => transport.send({ url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form, timeoutMs: 10_000 }),
        close: () => {
          transport.close();
          return Promise.resolve();
        },
      });
    },
  };
}

/**
 * The client's transport before it dispatched to undici itself: undici's request on a keep-alive
 * Agent, with the same deadline (an AbortController per call), reply limit and turn before the
 * answer is handed over, the body read with `text()`.
 */
function requestTransport(): Transport {
  const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 4_000, connectTimeout: 0, headersTimeout: 0, bodyTimeout: 0, maxResponseSize: 1024 * 1024, pipelining: 1 });
  return {
    async send({ url, headers, body, timeoutMs }) {
      const deadline = new AbortController();
      const timer = setTimeout(() => { deadline.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')); }, timeoutMs);
      try {
        const reply = await request(url, { dispatcher, method: 'POST', headers: { accept: '*/*', 'user-agent': 'node', ...headers }, body: body as string, signal: deadline.signal });
        const contentType = reply.headers['content-type'];
        const text = await reply.body.text();
        await new Promise(setImmediate);
        return { status: reply.statusCode, contentType: typeof contentType === 'string' ? contentType : '', text };
      } finally {
        clearTimeout(timer);
      }
    },
    close() {
      void dispatcher.close();
    },
  };
}

/** undici's request on one keep-alive Agent and nothing else: no deadline, limit or error mapping. */
function bareUndici(): Transport {
  const dispatcher = new Agent({ keepAliveTimeout: 4_000, connections: 64 });
  return {
    async send({ url, headers, body, timeoutMs }) {
      const reply = await request(url, { dispatcher, method: 'POST', headers, body: body as string, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      const contentType = reply.headers['content-type'];
      return { status: reply.statusCode, contentType: typeof contentType === 'string' ? contentType : '', text: await reply.body.text() };
    },
    close() {
      void dispatcher.close();
    },
  };
}

if (what === 'wal-sync') {
  await compare([sqliteWay('kit write path', 'kit'), sqliteWay('without the WAL sync (FULL)', 'checkpointer-only'), sqliteWay('group commit alone: FULL, auto checkpoint', 'group-commit-full')]);
} else if (what === 'checkpointer') {
  await compare([sqliteWay('kit write path', 'kit'), sqliteWay('without the checkpoint worker (auto checkpoint)', 'wal-sync-only')]);
} else if (what === 'durable') {
  await compare([
    sqliteWay('kit write path', 'kit'),
    sqliteWay('without the checkpoint worker (auto checkpoint)', 'wal-sync-only'),
    sqliteWay('without the WAL sync (FULL)', 'checkpointer-only'),
    sqliteWay('group commit alone: FULL, auto checkpoint', 'group-commit-full'),
    sqliteWay('SQLite alone: FULL, auto checkpoint, a transaction per write', 'sqlite-full'),
  ]);
} else {
  const upstream = fork(new URL('./upstream.ts', import.meta.url), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<{ value: { url: string } }>((resolve) => upstream.once('message', resolve as (m: unknown) => void));
  const base = ready.value.url;
  try {
    await compare([
      transportWay('the client\'s transport (undici dispatch, keep-alive Agent)', undiciTransport, base),
      transportWay('undici request with the same deadline and limit (the transport before)', requestTransport, base),
      transportWay('undici request alone', bareUndici, base),
      transportWay('global fetch', () => fetchTransport(globalThis.fetch), base),
    ]);
  } finally {
    upstream.kill();
  }
}
