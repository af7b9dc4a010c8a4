/**
 * The baseline: a bare Express 5 app in its own process, one route that parses the same
 * form-encoded body the kit's notify route receives and answers `OK`. Reports its origin over
 * IPC, then waits to be told to exit.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

const app = express();
let handled = 0;
let cpu = process.cpuUsage();
app.post('/checkout/notify', express.urlencoded({ extended: false }), (_req, res) => {
  handled++;
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
    process.send?.({ id: message.id, ok: true, value: { cpuUsPerRequest: (used.user + used.system) / handled } });
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
