/**
 * The baselines: one bare Express 5 app in its own process, in the same counting HTTP server as
 * the shop under test (bench/counting-server.ts), with one route that parses the form-encoded body
 * the kit's notify route receives. Each kind adds one step to the one before, and nothing else:
 *
 * - `bare`: answers `OK` (200).
 * - `durable`: first stores the body as one row and answers only once that row is on disk,
 *   through the write path the kit's store uses (SQLite: WAL, group commit, the fsync on libuv's
 *   thread pool, background checkpoints; PostgreSQL: one INSERT on a pool, as the kit's store
 *   commits). Its rate is the floor of any route that waits for a durable write here.
 * - `gateway`: stores the row, POSTs a form body over one keep-alive connection pool to a bare
 *   upstream in its own process (bench/upstream.ts, a fixed XML reply the size of an authorise
 *   reply), reads the reply, stores a second row and answers 303: the floor of a route with one
 *   gateway round trip between two durable writes.
 *
 * Reports its origin over IPC, then answers `cpu`, `memory` and `exit`.
 */
import { Agent } from 'node:http';
import Database from 'better-sqlite3';
import express from 'express';
import { silentLogger } from '../server/logging.js';
import { configureDurability, createDurableWrites } from '../server/orders/stores/sqlite-durable.js';
import { listenCounting } from './counting-server.js';
import { upstreamCall } from './upstream-wire.js';
import type { BaselineConfig, MemoryResult } from './protocol.js';

interface Persist {
  /** Stores one row durably; resolves once it is on disk. */
  store(orderNo: string, body: string): Promise<unknown>;
  /** Rows stored so far. */
  count(): Promise<number>;
  close(): Promise<void>;
}

const TABLE = 'CREATE TABLE IF NOT EXISTS notifications (id INTEGER PRIMARY KEY, order_no TEXT NOT NULL, body TEXT NOT NULL)';

function sqliteRows(file: string, simple: boolean): Persist {
  const db = new Database(file);
  if (simple) {
    // SQLite alone: WAL, COMMIT fsyncs (FULL) on the event loop, SQLite's own auto checkpoint.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(TABLE);
    const insert = db.prepare<[string, string]>('INSERT INTO notifications (order_no, body) VALUES (?, ?)');
    const count = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM notifications');
    return {
      store: (orderNo, body) => Promise.resolve(insert.run(orderNo, body)),
      count: () => Promise.resolve(count.get()?.n ?? 0),
      close: () => {
        db.close();
        return Promise.resolve();
      },
    };
  }
  const options = { logger: silentLogger, backgroundCheckpoints: true, backgroundSync: true };
  const walSync = configureDurability(db, options);
  db.exec(TABLE);
  const insert = db.prepare<[string, string]>('INSERT INTO notifications (order_no, body) VALUES (?, ?)');
  const count = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM notifications');
  const writes = createDurableWrites(db, walSync, options);
  return {
    store: (orderNo, body) => writes.write(() => insert.run(orderNo, body)),
    count: () => Promise.resolve(count.get()?.n ?? 0),
    async close() {
      await writes.close();
      db.close();
    },
  };
}

async function postgresRows(url: string, schema: string): Promise<Persist> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url });
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  await pool.query(`CREATE TABLE IF NOT EXISTS "${schema}".notifications (id BIGSERIAL PRIMARY KEY, order_no TEXT NOT NULL, body TEXT NOT NULL)`);
  const insert = `INSERT INTO "${schema}".notifications (order_no, body) VALUES ($1, $2)`;
  return {
    // One statement, one commit: synchronous_commit (on by default) makes it durable first.
    store: (orderNo, body) => pool.query(insert, [orderNo, body]),
    count: async () => Number(((await pool.query(`SELECT COUNT(*) AS n FROM "${schema}".notifications`)).rows[0] as { n: string }).n),
    async close() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

const config = JSON.parse(process.argv[2] ?? '{"kind":"bare"}') as BaselineConfig;
const persist: Persist | null =
  config.store === undefined ? null : 'pg' in config.store ? await postgresRows(config.store.pg, config.store.schema) : sqliteRows(config.store.sqlite, config.store.simple === true);

const app = express();
const form = express.urlencoded({ extended: false });
if (config.kind === 'gateway') {
  if (persist === null || config.upstream === undefined) throw new Error('the gateway baseline needs a store and an upstream');
  const agent = new Agent({ keepAlive: true });
  const upstream = new URL(config.upstream);
  app.post('/checkout/notify', form, async (req, res) => {
    const body = req.body as Record<string, string>;
    const orderNo = body.order_no ?? '';
    const text = new URLSearchParams(body).toString();
    await persist.store(orderNo, text);
    const reply = await upstreamCall(agent, upstream, text);
    await persist.store(orderNo, reply);
    res.status(303).set('Cache-Control', 'no-store').location('/checkout/result').end();
  });
} else {
  app.post('/checkout/notify', form, async (req, res) => {
    const body = req.body as Record<string, string>;
    if (persist !== null) await persist.store(body.order_no ?? '', JSON.stringify(body));
    res.status(200).set('Cache-Control', 'no-store').type('text/plain').send('OK');
  });
}
const server = await listenCounting(app);
let cpu = process.cpuUsage();
let handledBefore = 0;
process.send?.({ id: 0, ok: true, value: { url: server.url } });
process.on('message', (message: { id: number; command: { cmd: string } }) => {
  const reply = (value: unknown): void => {
    process.send?.({ id: message.id, ok: true, value });
  };
  if (message.command.cmd === 'cpu') {
    // CPU per request since the last ask (the runner asks before and after each run). A request
    // still in flight after a few seconds is left out rather than waited for for ever.
    let timer: NodeJS.Timeout | undefined;
    const settled = Promise.race([server.idle(), new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
    void settled.then(async () => {
      clearTimeout(timer);
      const used = process.cpuUsage(cpu);
      const handled = server.handled() - handledBefore;
      const stored = persist === null ? null : await persist.count();
      reply({ cpuUsPerRequest: (used.user + used.system) / handled, stored });
      cpu = process.cpuUsage();
      handledBefore = server.handled();
    });
  } else if (message.command.cmd === 'memory') {
    reply({ rssPeakMb: process.resourceUsage().maxRSS / 1024, rssNowMb: process.memoryUsage.rss() / (1024 * 1024), heapTotalMb: process.memoryUsage().heapTotal / (1024 * 1024), liveHeapMb: null } satisfies MemoryResult);
  } else {
    void Promise.all([server.close(), persist?.close()]).finally(() => {
      reply(null);
      setImmediate(() => process.exit(0));
    });
  }
});
