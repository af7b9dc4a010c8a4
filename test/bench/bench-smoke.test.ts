/**
 * Smoke test of the benchmark: the quick mode (`npm run bench -- --quick`) still runs end to end
 * — servers, gateway, seeder and load generator in their own processes — and writes every figure
 * as a finite number to the file it is given, leaving bench/results.json alone. It says nothing
 * about speed: the figures of a quick run on a busy machine mean nothing.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RESULT_FIELDS } from '../../bench/targets.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const committed = join(root, 'bench', 'results.json');
const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function runQuick(out: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench', 'run.ts'), '--quick', '--out', out], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      resolve({ code, stderr });
    });
  });
}

describe('npm run bench -- --quick', () => {
  it('writes every figure as a finite number to the given file, not to bench/results.json', async () => {
    const before = existsSync(committed) ? readFileSync(committed, 'utf8') : null;
    const out = join(dir, 'results.json');

    const { code, stderr } = await runQuick(out);

    expect(code, stderr.slice(-2000)).toBe(0);
    const results = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
    expect(results.mode).toBe('quick');
    for (const field of RESULT_FIELDS) {
      expect(typeof results[field], field).toBe('number');
      expect(Number.isFinite(results[field]), field).toBe(true);
    }
    // The disk's durable-write floor is recorded beside the machine: the ratios depend on it.
    const { fsync } = results.machine as { fsync: { samples: number; p50_us: number; p99_us: number } };
    expect(fsync.samples).toBeGreaterThan(0);
    expect(fsync.p50_us).toBeGreaterThan(0);
    expect(fsync.p99_us).toBeGreaterThanOrEqual(fsync.p50_us);
    // Every run answered what its route answers: the benchmark measured real work.
    const runs = results.runs as { name: string; requests: number; statusCounts: Record<string, number>; server_cpu_us_per_request: number }[];
    expect(new Set(runs.map((r) => r.name))).toEqual(new Set(['baseline', 'durable_baseline', 'notify', 'notify_confirmed', 'pay_direct', 'render']));
    for (const run of runs) {
      expect(run.requests, run.name).toBeGreaterThan(0);
      expect(run.server_cpu_us_per_request, run.name).toBeGreaterThan(0);
    }
    // Every route run, and the durable floor, comes right after a baseline run of its own: the pair its ratio is made of.
    expect(runs.map((r) => r.name)).toEqual(['durable_baseline', 'notify', 'notify_confirmed', 'pay_direct', 'render'].flatMap((name) => ['baseline', name]));
    expect(existsSync(committed) ? readFileSync(committed, 'utf8') : null).toBe(before);
  }, 240_000);
});
