/**
 * The packed package as a shop gets it: built into a temporary copy (never the repository's own
 * dist/), `npm pack`ed, installed into a fresh app (from npm's cache where it can), and processes of
 * that app (its bin, its server) run and read.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyAssets } from '../../../scripts/copy-assets.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function run(command: string, args: string[], cwd: string, timeout = 300_000): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout, env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${String(result.status)}): ${result.stdout}${result.stderr}`);
  return result.stdout;
}

export interface PackedApp {
  /** The temporary app folder, with the package installed in node_modules. */
  dir: string;
  bin: string;
  remove(): void;
}

/** Builds, packs and installs the package (and `extra` packages) into a fresh app. */
export function installPackedApp(extra: string[]): PackedApp {
  const work = mkdtempSync(join(tmpdir(), 'packed-'));
  const pkg = join(work, 'pkg');
  mkdirSync(pkg);
  for (const file of ['package.json', 'README.md']) copyFileSync(join(ROOT, file), join(pkg, file));
  for (const dir of ['views', 'public']) cpSync(join(ROOT, dir), join(pkg, dir), { recursive: true });
  // The build of `npm run build`, written into the copy.
  run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist', 'server'), '--rootDir', join(ROOT, 'server'), '--sourceMap', 'false', '--inlineSources', 'false', '--declarationMap', 'false'], ROOT);
  copyAssets(join(ROOT, 'server'), join(pkg, 'dist', 'server'));
  // The copy is built above (its prepack would build from sources it does not have).
  run('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', work], pkg);
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('npm pack wrote no tarball');

  const dir = join(work, 'app');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-shop', private: true, type: 'module' }, null, 2));
  // From npm's cache where it can: `npm ci` caches the lockfile's tarballs but not the registry's
  // package documents a by-name install needs, so those may come from the registry. Install
  // scripts are skipped: better-sqlite3's would compile its addon for minutes; the same
  // version's addon, already built in the repository, is copied in.
  run('npm', ['install', join(work, tarball), ...extra, '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], dir);
  const addon = join('better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  mkdirSync(dirname(join(dir, 'node_modules', addon)), { recursive: true });
  copyFileSync(join(ROOT, 'node_modules', addon), join(dir, 'node_modules', addon));
  return {
    dir,
    bin: join(dir, 'node_modules', '.bin', 'acquiring-checkout-kit'),
    remove: () => {
      rmSync(work, { recursive: true, force: true });
    },
  };
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `re` in stdout (or stderr), or rejects after `ms`. */
  waitFor(re: RegExp, ms?: number): Promise<RegExpExecArray>;
  stop(): Promise<void>;
}

export function start(command: string, args: string[], cwd: string, env: Record<string, string>): Running {
  const child = spawn(command, args, { cwd, env: { ...process.env, NODE_ENV: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => {
    resolve();
  }));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    async waitFor(re, ms = 60_000) {
      const until = Date.now() + ms;
      for (;;) {
        const match = re.exec(out) ?? re.exec(err);
        if (match !== null) return match;
        if (child.exitCode !== null || Date.now() > until) throw new Error(`no ${String(re)} from ${command} ${args.join(' ')}:\n${out}\n${err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/** Runs `command` to its end: its exit code and output. */
export function runToEnd(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NODE_ENV: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}
