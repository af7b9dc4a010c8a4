/**
 * The load generator: one autocannon run per process, apart from the server under test so the
 * two never share an event loop. Reads a LoadJob (JSON, first argument), sends the prepared
 * requests in order (each once: distinct orders, distinct dedupe keys), and prints a LoadResult
 * as JSON on stdout. When the list runs out the run stops early; the few requests sent while
 * it stops repeat the last one and are counted as `overrun`.
 */
import { readFileSync } from 'node:fs';
import autocannon, { type Instance } from 'autocannon';
import type { LoadJob, LoadRequest, LoadResult } from './protocol.js';

const job = JSON.parse(process.argv[2] ?? '{}') as LoadJob;
const list = JSON.parse(readFileSync(job.requestsFile, 'utf8')) as LoadRequest[];
if (list.length === 0) throw new Error('no requests to send');

let next = 0;
let overrun = 0;
let current: Instance | null = null;

function nextRequest(): LoadRequest {
  if (next < list.length) return list[next++]!;
  overrun++;
  current?.stop();
  return list[list.length - 1]!;
}

function run(duration: number): Instance {
  current = autocannon({
    url: job.url,
    connections: job.connections,
    duration,
    // Short samples so a stop (list exhausted) takes effect within 100 ms.
    sampleInt: 100,
    timeout: 30,
    requests: [
      {
        setupRequest: (request) => {
          const r = nextRequest();
          return { ...request, method: r.method, path: r.path, headers: { ...r.headers }, body: r.body ?? '' };
        },
      },
    ],
  });
  return current;
}

if (job.warmup > 0) {
  await run(job.warmup);
  overrun = 0;
}
const result = await run(job.duration);
const statusCounts: Record<string, number> = {};
for (const [code, stat] of Object.entries(result.statusCodeStats)) statusCounts[code] = stat.count;
const out: LoadResult = {
  rps: result.duration > 0 ? result.requests.total / result.duration : 0,
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  requests: result.requests.total,
  seconds: result.duration,
  statusCounts,
  errors: result.errors,
  timeouts: result.timeouts,
  overrun,
};
process.stdout.write(`${JSON.stringify(out)}\n`);
