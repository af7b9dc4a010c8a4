/**
 * Pug views for the kit, the admin and the sandbox, compiled once per process and file. The
 * compiler itself (pug, its lexer, parser, code generator and a JavaScript parser: about 6 MB of
 * live heap, which V8 lets grow to several times that between full collections under load) runs
 * in a short-lived worker thread, so it never loads into the server's own heap. The worker
 * returns each view as standalone JavaScript (pug's runtime helpers inlined), which becomes a
 * function here: exactly what `pug.compileFile` would have built. The caller waits for the
 * worker synchronously (Atomics.wait), so views are still ready when a router is created.
 */
// Measured (bench/views-memory.ts): compiling the checkout and admin views adds 1.1 MB of live heap
// this way against 11 MB with pug.compileFile in the process (docs/performance.md, "Machinery").
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';

export type View = (locals: Record<string, unknown>) => string;

/** Generous: a cold start on a busy machine loads pug from disk first. */
const COMPILE_TIMEOUT_MS = 60_000;

// Plain CommonJS run by the worker (eval), so it starts the same under node, tsx and test runners.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
let result;
try {
  const pug = require(workerData.pug);
  const sources = workerData.files.map((file) =>
    pug.compileFileClient(file, { basedir: workerData.basedir, name: 'template', compileDebug: workerData.compileDebug, inlineRuntimeFunctions: true }),
  );
  result = { sources };
} catch (error) {
  result = { error: String((error && error.message) || error) };
}
workerData.port.postMessage(result);
Atomics.store(workerData.done, 0, 1);
Atomics.notify(workerData.done, 0);
`;

const cache = new Map<string, View>();

function compileInWorker(basedir: string, files: string[]): string[] {
  const pug = createRequire(import.meta.url).resolve('pug');
  const done = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  // As pug.compileFile: line numbers in render errors unless NODE_ENV is production.
  const compileDebug = process.env.NODE_ENV !== 'production';
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    // Not the parent's flags: under --input-type=module the eval'd CommonJS would not run at all.
    execArgv: [],
    workerData: { pug, basedir, files, compileDebug, port: port2, done },
    transferList: [port2],
  });
  try {
    if (Atomics.wait(done, 0, 0, COMPILE_TIMEOUT_MS) === 'timed-out') {
      throw new Error(`compiling ${files.join(', ')} took longer than ${String(COMPILE_TIMEOUT_MS / 1000)} s`);
    }
    const reply = receiveMessageOnPort(port1)?.message as { sources?: string[]; error?: string } | undefined;
    if (reply?.sources === undefined) throw new Error(reply?.error ?? 'the view compiler sent nothing back');
    return reply.sources;
  } finally {
    port1.close();
    void worker.terminate();
  }
}

/**
 * The views `names` of `dir` (`{dir}/{name}.pug`, `extends`/`include` resolved against `dir`),
 * each compiled once per process; the ones not compiled yet share one worker.
 */
export function compilePugViews<N extends string>(dir: string, names: readonly N[]): Record<N, View> {
  const files = names.map((name) => join(dir, `${name}.pug`));
  const missing = files.filter((file) => !cache.has(file));
  if (missing.length > 0) {
    const sources = compileInWorker(dir, missing);
    missing.forEach((file, i) => {
      // The source defines `function template(locals)` and everything it needs; pug's own
      // compileFile turns its output into a function the same way.
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the worker's output is pug's compiled code, not input
      const factory = new Function(`${sources[i] ?? ''}\nreturn template;`) as () => View;
      cache.set(file, factory());
    });
  }
  const views = {} as Record<N, View>;
  names.forEach((name, i) => {
    const view = cache.get(files[i] ?? '');
    if (view === undefined) throw new Error(`view ${name} was not compiled`);
    views[name] = view;
  });
  return views;
}
