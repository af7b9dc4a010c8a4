/**
 * What compiling the kit's views costs the process that renders them, by each way of doing it:
 * `worker` (server/pug-views.ts: pug runs in a short-lived worker thread) or `in-process`
 * (`pug.compileFile` at start, the simple alternative). Run once per way, each in a fresh
 * process: `node --expose-gc --import tsx bench/views-memory.ts worker|in-process`. Prints JSON:
 * the live heap after a full GC, RSS, and the time to compile every view of the checkout and
 * the admin. docs/performance.md ("Machinery") quotes it.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_VIEWS_DIR } from '../server/admin/views.js';
import { CHECKOUT_VIEWS_DIR } from '../server/checkout/render.js';
import { compilePugViews } from '../server/pug-views.js';

const way = process.argv[2] ?? 'worker';
const gc = globalThis.gc ?? ((): void => undefined);
const MB = 1024 * 1024;
const views = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.pug') && !['layout.pug', 'mixins.pug'].includes(f)).map((f) => f.slice(0, -4));

gc();
const before = process.memoryUsage();
const started = process.hrtime.bigint();
const compiled: unknown[] = [];
for (const dir of [CHECKOUT_VIEWS_DIR, ADMIN_VIEWS_DIR]) {
  if (way === 'in-process') {
    const { default: pug } = await import('pug');
    for (const name of views(dir)) compiled.push(pug.compileFile(join(dir, `${name}.pug`), { basedir: dir }));
  } else {
    compiled.push(...Object.values(compilePugViews(dir, views(dir))));
  }
}
const ms = Number(process.hrtime.bigint() - started) / 1e6;
gc();
const after = process.memoryUsage();
process.stdout.write(
  `${JSON.stringify({ way, views: compiled.length, compile_ms: Math.round(ms), live_heap_added_mb: +((after.heapUsed - before.heapUsed) / MB).toFixed(1), rss_added_mb: +((after.rss - before.rss) / MB).toFixed(1), rss_mb: +(after.rss / MB).toFixed(1) })}\n`,
);
