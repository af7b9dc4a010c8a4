/** Starting, killing and restarting shop processes (test/reliability/fixtures/shop-process.ts). */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('../fixtures/shop-process.ts', import.meta.url));

export interface ShopProcess {
  child: ChildProcess;
  gatewayUrl: string;
  output: string[];
  /** SIGKILL: no clean-up at all. */
  kill(): Promise<void>;
  /** SIGTERM: the kit stops its sweeper and closes the store. */
  stop(): Promise<void>;
}

/** A port free right now (the process must come back on the same one after a restart). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => {
    resolve();
  }));
  return port;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => {
    resolve();
  }));
}

export async function startShopProcess(env: Record<string, string>): Promise<ShopProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const gatewayUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`shop process did not start: ${output.join('')}`));
    }, 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      output.push(text);
      const match = /ready (\S+)/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`shop process exited (${String(code)}): ${output.join('')}`));
    });
  });
  return {
    child,
    gatewayUrl,
    output,
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited(child);
      clearTimeout(timer);
    },
  };
}

/** The JSON lines of a file written by the shop processes (a torn last line after a SIGKILL is skipped). */
export function readJsonLines<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  const out: T[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      // the line being written when the process was killed
    }
  }
  return out;
}
