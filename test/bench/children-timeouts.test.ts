/**
 * The bench runner's children never leave a run waiting for ever: a command a child does not
 * answer, or a job that does not finish, fails within its deadline with an error naming it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runJob, startChild } from '../../bench/children.js';

const dir = mkdtempSync(join(tmpdir(), 'bench-children-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A child that announces itself, answers `exit` and ignores every other command. */
const silentChild = join(dir, 'silent-child.mjs');
writeFileSync(silentChild, `
process.send({ id: 0, ok: true, value: 'ready' });
process.on('message', (m) => {
  if (m.command.cmd === 'exit') { process.send({ id: m.id, ok: true, value: null }); setImmediate(() => process.exit(0)); }
});
`);
/** A job that never prints or exits by itself. */
const stuckJob = join(dir, 'stuck-job.mjs');
writeFileSync(stuckJob, 'setInterval(() => undefined, 1000);\n');

describe('bench children', () => {
  it('rejects a command the child does not answer within its deadline, naming the command', async () => {
    const child = await startChild<{ cmd: 'finish' } | { cmd: 'exit' }>(silentChild, []);
    try {
      await expect(child.send({ cmd: 'finish' }, 300)).rejects.toThrow(/no answer to finish within 0\.3 s/);
    } finally {
      await child.stop();
    }
  });

  it('kills a job that does not finish within its deadline and says so', async () => {
    await expect(runJob(stuckJob, {}, 500)).rejects.toThrow(/did not finish within 0\.5 s: killed/);
  });
});
