/**
 * What `sendNoStore` (server/checkout/no-store.ts) saves over Express's own `res.send` for a
 * page of the size the pay route renders (the auto-submit page, ~3 KB): server CPU per request
 * of each, measured in alternating runs of autocannon (its own process) against one server.
 * `node --import tsx bench/no-store-cost.ts [rounds]`; prints JSON. docs/performance.md
 * ("Machinery") quotes it.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { sendNoStore } from '../server/http/no-store.js';

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Redirecting</title></head><body><form method="post" action="https://gateway.example/checkout">${'<input type="hidden" name="field" value="0123456789abcdef0123456789abcdef">'.repeat(45)}</form></body></html>`;
const app = express();
let handled = 0;
app.get('/send', (_req, res) => {
  handled++;
  res.status(200).set('Cache-Control', 'no-store').type('html').send(PAGE);
});
app.get('/no-store', (_req, res) => {
  handled++;
  sendNoStore(res, 200, 'text/html; charset=utf-8', PAGE);
});
const server = createServer(app);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
const autocannon = fileURLToPath(new URL('../node_modules/autocannon/autocannon.js', import.meta.url));

/** Runs the load in another process while this one serves; resolves with CPU µs per request. */
function load(path: string): Promise<number> {
  return new Promise((resolve) => {
    handled = 0;
    const cpu = process.cpuUsage();
    const child = spawn(process.execPath, [autocannon, '-c', '16', '-d', '3', '--json', `${origin}${path}`], { stdio: 'ignore' });
    child.on('exit', () => {
      const used = process.cpuUsage(cpu);
      resolve((used.user + used.system) / handled);
    });
  });
}

const rounds = Number(process.argv[2] ?? 4);
const send: number[] = [];
const noStore: number[] = [];
for (let i = 0; i < rounds; i++) {
  send.push(await load('/send'));
  noStore.push(await load('/no-store'));
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
process.stdout.write(`${JSON.stringify({ page_bytes: PAGE.length, res_send_cpu_us: Math.round(median(send)), send_no_store_cpu_us: Math.round(median(noStore)), ratio: +(median(noStore) / median(send)).toFixed(2), rounds: { send: send.map(Math.round), noStore: noStore.map(Math.round) } })}\n`);
server.close();
