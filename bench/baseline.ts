/**
 * The baseline: a bare Express 5 app in its own process, one route that parses the same
 * form-encoded body the kit's notify route receives and answers `OK`. Reports its origin over
 * IPC, then waits to be told to exit.
 *
 * Given a file (`baseline.ts <file.sqlite>`) it is the durable baseline instead: the same route
 * stores each body as one row and answers only once that row is on disk, through the write path
 * the kit's SQLite store uses (WAL, group commit, the fsync on libuv's thread pool, background
 * checkpoints). Its rate is the floor of this machine: no route that waits for a durable write
 * can go faster, however little else it does.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import express from 'express';
import { silentLogger } from '../server/logging.js';
import { configureDurability, createDurableWrites } from '../server/orders/stores/sqlite-durable.js';

interface Persist {
  /** Stores one posted body durably; resolves once it is on disk. */
  store(body: Record<string, string>): Promise<unknown>;
  /** Rows stored so far. */
  count(): number;
}

function durableRows(file: string): Persist {
  const db = new Database(file);
  const options = { logger: silentLogger, backgroundCheckpoints: true, backgroundSync: true };
  const walSync = configureDurability(db, options);
  db.exec('CREATE TABLE IF NOT EXISTS notifications (id INTEGER PRIMARY KEY, order_no TEXT NOT NULL, body TEXT NOT NULL)');
  const insert = db.prepare<[string, string]>('INSERT INTO notifications (order_no, body) VALUES (?, ?)');
  const count = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM notifications');
  const writes = createDurableWrites(db, walSync, options);
  return {
    store: (body) => writes.write(() => insert.run(body.order_no ?? '', JSON.stringify(body))),
    count: () => count.get()?.n ?? 0,
  };
}

const file = process.argv[2];
const persist: Persist | null = file === undefined ? null : durableRows(file);
const app = express();
let handled = 0;
let cpu = process.cpuUsage();
app.post('/checkout/notify', express.urlencoded({ extended: false }), async (req, res) => {
  handled++;
  if (persist !== null) await persist.store(req.body as Record<string, string>);
  res.status(200).set('Cache-Control', 'no-store').type('text/plain').send('OK');
});
const server = createServer(app);
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send?.({ id: 0, ok: true, value: { url: `http://127.0.0.1:${String(port)}` } });
});
process.on('message', (message: { id: number; command: { cmd: string } }) => {
  if (message.command.cmd === 'cpu') {
    // CPU per request since the last ask (the runner asks before and after each run).
    const used = process.cpuUsage(cpu);
    process.send?.({ id: message.id, ok: true, value: { cpuUsPerRequest: (used.user + used.system) / handled, stored: persist?.count() ?? null } });
    cpu = process.cpuUsage();
    handled = 0;
  } else if (message.command.cmd === 'memory') {
    process.send?.({ id: message.id, ok: true, value: { rssPeakMb: process.resourceUsage().maxRSS / 1024, rssNowMb: process.memoryUsage.rss() / (1024 * 1024), heapTotalMb: process.memoryUsage().heapTotal / (1024 * 1024), liveHeapMb: null } });
  } else {
    process.send?.({ id: message.id, ok: true, value: null });
    server.close();
    setImmediate(() => process.exit(0));
  }
});
