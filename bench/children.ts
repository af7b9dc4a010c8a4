/**
 * The runner's child processes: servers under test (IPC request/reply) and one load-generator
 * process per measured run. They run the TypeScript sources through the tsx loader, or, once
 * `useCompiled` was called (the full run), the compiled JavaScript with plain `node`, as a shop
 * runs the kit: the tsx loader alone costs a server over 100 MB.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostReply, LoadJob, LoadResult } from './protocol.js';

const TSX = ['--import', 'tsx'];
export const benchFile = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

/** Directory of the compiled bench modules (dist/bench), or null to run the sources under tsx. */
let compiledDir: string | null = null;

/** From now on children run `<dir>/<name>.js` with plain node. */
export function useCompiled(dir: string): void {
  compiledDir = dir;
}

const childFile = (name: string): string => (compiledDir === null ? benchFile(name) : join(compiledDir, name.replace(/\.ts$/, '.js')));
const loaderFlags = (): string[] => (compiledDir === null ? TSX : []);

/**
 * How long a child may take to answer one command (a scenario's preparation, its checks after the
 * load, a sweep of 100,000 orders) before the run stops with an error naming the command, rather
 * than waiting for ever on a child that is stuck.
 */
export const COMMAND_TIMEOUT_MS = 10 * 60_000;
/** The same for a one-shot job (the seeder; a load run gets its own duration plus a minute). */
export const JOB_TIMEOUT_MS = 15 * 60_000;

/** A child answering commands of type C over IPC; every kind understands `{ cmd: 'exit' }`. */
export interface Child<C extends { cmd: string }> {
  /** The value the child announced when it was ready. */
  ready: unknown;
  /** Rejects when the child has not answered within `timeoutMs` (default COMMAND_TIMEOUT_MS). */
  send<T>(command: C, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

/** `nodeFlags`: V8/Node options for the child, beside the loader's and --expose-gc. */
export function startChild<C extends { cmd: string }>(file: string, args: string[], nodeFlags: readonly string[] = []): Promise<Child<C>> {
  // --expose-gc: the servers may collect the seeding's garbage before a measured window.
  const child: ChildProcess = fork(childFile(file), args, { execArgv: [...loaderFlags(), '--expose-gc', ...nodeFlags], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let exited = false;
  child.on('exit', (code) => {
    exited = true;
    for (const w of waiting.values()) w.reject(new Error(`${file} exited (code ${String(code)})`));
    waiting.clear();
  });
  child.on('message', (reply: HostReply) => {
    const w = waiting.get(reply.id);
    if (!w) return;
    waiting.delete(reply.id);
    if (reply.ok) w.resolve(reply.value);
    else w.reject(new Error(`${file}: ${reply.error}`));
  });
  const ask = <T>(id: number, command?: { cmd: string }, timeoutMs = COMMAND_TIMEOUT_MS): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (exited) {
        reject(new Error(`${file} is not running`));
        return;
      }
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`${file}: no answer to ${command?.cmd ?? 'start'} within ${String(timeoutMs / 1000)} s`));
      }, timeoutMs);
      const settle = <V>(fn: (v: V) => void) => (v: V): void => {
        clearTimeout(timer);
        fn(v);
      };
      waiting.set(id, { resolve: settle(resolve as (v: unknown) => void), reject: settle(reject) });
      if (command) child.send({ id, command });
    });
  return ask<unknown>(0).then((ready) => ({
    ready,
    send: <T>(command: C, timeoutMs?: number) => ask<T>(nextId++, command, timeoutMs),
    async stop() {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
      await ask(nextId++, { cmd: 'exit' }).catch(() => undefined);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    },
  }));
}

/**
 * Runs `file` once in its own process with `job` (JSON) and returns the JSON it prints last. A job
 * still running after `timeoutMs` is killed and the run stops with an error naming it.
 */
export function runJob<T>(file: string, job: object, timeoutMs = JOB_TIMEOUT_MS): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...loaderFlags(), childFile(file), JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').pop() ?? '';
      if (timedOut) {
        reject(new Error(`${file} did not finish within ${String(timeoutMs / 1000)} s: killed`));
        return;
      }
      if (code !== 0 || line === '') {
        reject(new Error(`${file} failed (exit ${String(code)})`));
        return;
      }
      resolve(JSON.parse(line) as T);
    });
  });
}

/** One autocannon run in its own process. */
export const runLoad = (job: LoadJob): Promise<LoadResult> => runJob<LoadResult>('./load.ts', job, (job.warmup + job.duration + 60) * 1000);
