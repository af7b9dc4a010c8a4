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
import { PG_FIELDS, RESULT_FIELDS } from '../../bench/targets.js';

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
    // The PostgreSQL figures are measured when the run is given a database (BENCH_DATABASE_URL).
    const postgres = (results.settings as { postgres: boolean }).postgres;
    expect(postgres).toBe(Boolean(process.env.BENCH_DATABASE_URL));
    for (const field of [...RESULT_FIELDS, ...(postgres ? PG_FIELDS : [])]) {
      expect(typeof results[field], field).toBe('number');
      expect(Number.isFinite(results[field]), field).toBe(true);
    }
    // The servers ran with Node's default flags: the kit does not choose a shop's V8 settings.
    expect((results.settings as { server_node_flags: string[] }).server_node_flags).toEqual([]);
    // The disk's durable-write floor is recorded beside the machine: the ratios depend on it.
    const { fsync } = results.machine as { fsync: { samples: number; p50_us: number; p99_us: number } };
    expect(fsync.samples).toBeGreaterThan(0);
    expect(fsync.p50_us).toBeGreaterThan(0);
    expect(fsync.p99_us).toBeGreaterThanOrEqual(fsync.p50_us);
    // Every run answered what its route answers: the benchmark measured real work.
    const runs = results.runs as { name: string; paired_with?: string; requests: number; statusCounts: Record<string, number>; server_cpu_us_per_request: number }[];
    const sqliteRoutes = ['notify', 'notify_store', 'notify_confirmed', 'pay_direct', 'pay_direct_store', 'render', 'render_store'];
    const pgRoutes = postgres ? ['notify_pg', 'pay_direct_pg'] : [];
    const floors = ['baseline', 'durable_baseline', 'gateway_baseline', ...(postgres ? ['pg_durable_baseline', 'pg_gateway_baseline'] : [])];
    expect(new Set(runs.map((r) => r.name))).toEqual(new Set([...floors, ...sqliteRoutes, ...pgRoutes]));
    // A slow route on a loaded machine can finish no request inside the quick run's 1 s window:
    // a speed fact, not a failure (the bench itself fails a run whose answers had the wrong
    // status). The fast bare route always does, so load was really sent.
    expect(runs.find((r) => r.name === 'baseline')?.requests).toBeGreaterThan(0);
    for (const run of runs) {
      expect(Number.isInteger(run.requests), run.name).toBe(true);
      if (run.requests > 0) expect(run.server_cpu_us_per_request, run.name).toBeGreaterThan(0);
    }
    // Each floor comes right after a run of the floor it adds one step to, and every route right after a
    // run of its own floor: the pairs its ratios are made of.
    const chain = ['baseline', 'durable_baseline', 'gateway_baseline', ...(postgres ? ['baseline', 'pg_durable_baseline', 'pg_gateway_baseline'] : [])];
    const paired: Record<string, string> = {
      notify: 'durable_baseline', notify_store: 'durable_baseline', notify_confirmed: 'gateway_baseline', pay_direct: 'gateway_baseline', pay_direct_store: 'gateway_baseline', render: 'durable_baseline', render_store: 'durable_baseline',
      notify_pg: 'pg_durable_baseline', pay_direct_pg: 'pg_gateway_baseline',
    };
    const routes = ['notify', 'notify_store', 'notify_confirmed', 'pay_direct', 'pay_direct_store', 'render', 'render_store', ...pgRoutes];
    expect(runs.map((r) => r.name)).toEqual([...chain, ...routes.flatMap((name) => [paired[name], name])]);
    for (const [i, run] of runs.entries()) {
      if (run.paired_with !== undefined) expect(run.paired_with, run.name).toBe(runs[i - 1]?.name);
    }
    expect(existsSync(committed) ? readFileSync(committed, 'utf8') : null).toBe(before);
  }, 240_000);
});
