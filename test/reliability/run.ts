/**
 * `npm run reliability`: every scenario at its full size against the real kit and sandbox,
 * a table on stdout and test-results/reliability.json (docs/reliability.md is rendered from it
 * by scripts/render-reliability.ts). `--reduced` runs the npm-test sizes; `--only=id,id` some
 * (the others' results of the same size stay in the file). The file is written after each
 * scenario, so a run stopped part-way keeps what finished. Exits non-zero when any invariant failed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { crash, fuzz, gatewayFaults, hookOutbox, load, missedChanges, multiInstance, notificationChaos, notificationsAhead, refundLedger, security } from './scenarios/index.js';
import type { ScenarioResult } from './support/result.js';
import { FULL, REDUCED, type Size } from './support/sizes.js';

export const RESULTS_PATH = 'test-results/reliability.json';

const SCENARIOS: { id: string; run: (size: Size) => Promise<ScenarioResult> }[] = [
  { id: 'notification-chaos', run: notificationChaos },
  { id: 'notifications-ahead', run: notificationsAhead },
  { id: 'refund-ledger', run: refundLedger },
  { id: 'missed-changes', run: missedChanges },
  { id: 'gateway-faults', run: gatewayFaults },
  { id: 'crash', run: crash },
  { id: 'multi-instance', run: multiInstance },
  { id: 'hook-outbox', run: hookOutbox },
  { id: 'load', run: load },
  { id: 'fuzz', run: fuzz },
  { id: 'security', run: security },
];

function table(results: readonly ScenarioResult[]): string {
  const rows = [['scenario', 'runs', 'failures', 'orders lost', 'double charges', 'seconds'], ...results.map((r) => [
    r.skipped === null ? r.title : `${r.title} (skipped)`, String(r.runs), String(r.failures), String(r.ordersLost), String(r.doubleCharges), (r.durationMs / 1000).toFixed(1),
  ])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row, n) => {
    const line = row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
    return n === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line;
  }).join('\n');
}

const args = process.argv.slice(2);
const size = args.includes('--reduced') ? REDUCED : FULL;
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
const results: ScenarioResult[] = [];
const started = new Date();
// With --only, the other scenarios' results of the same size are kept from the last run.
const previous = only !== undefined && existsSync(RESULTS_PATH) ? JSON.parse(readFileSync(RESULTS_PATH, 'utf8')) as { size: string; scenarios: ScenarioResult[] } : null;
const kept = previous?.size === size.name ? previous.scenarios : [];

/** Written after every scenario, so a run stopped part-way keeps what finished. */
function writeResults(): ScenarioResult[] {
  const all = [...results, ...kept.filter((p) => !results.some((r) => r.id === p.id))];
  all.sort((a, b) => SCENARIOS.findIndex((s) => s.id === a.id) - SCENARIOS.findIndex((s) => s.id === b.id));
  mkdirSync('test-results', { recursive: true });
  writeFileSync(RESULTS_PATH, `${JSON.stringify({
    generatedAt: started.toISOString(),
    size: size.name,
    machine: { cpus: cpus().length, node: process.version, postgres: process.env.TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : null },
    scenarios: all,
  }, null, 2)}\n`);
  return all;
}

for (const scenario of SCENARIOS) {
  if (only !== undefined && !only.includes(scenario.id)) continue;
  process.stdout.write(`reliability: ${scenario.id} (${size.name})…\n`);
  const result = await scenario.run(size).catch((err: unknown): ScenarioResult => ({
    id: scenario.id, title: scenario.id, size: size.name, tried: 'the scenario stopped with an error', runs: 0, failures: 1, ordersLost: 0, doubleCharges: 0,
    durationMs: 0, skipped: null, figures: {}, checks: [{ name: 'the scenario runs to the end', tried: 1, failed: 1, examples: [err instanceof Error ? (err.stack ?? err.message).slice(0, 300) : String(err)] }],
  }));
  results.push(result);
  writeResults();
  const failed = result.checks.filter((c) => c.failed > 0);
  process.stdout.write(`  ${String(result.runs)} runs, ${String(result.failures)} failures in ${(result.durationMs / 1000).toFixed(1)} s${result.skipped === null ? '' : ` — SKIPPED: ${result.skipped}`}\n`);
  for (const c of failed) process.stdout.write(`  FAILED ${c.name}: ${String(c.failed)}/${String(c.tried)} — ${c.examples.join(' | ')}\n`);
}
const all = writeResults();
process.stdout.write(`\n${table(all)}\n\nwrote ${RESULTS_PATH}\n`);
// Only this run's scenarios decide the exit status.
const failures = results.reduce((n, r) => n + r.failures + r.ordersLost + r.doubleCharges, 0);
process.exit(failures === 0 ? 0 : 1);
