import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import type { SqliteOrderStore } from '../../../server/orders/stores/sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'order-store-sqlite-race-'));
const stores: SqliteOrderStore[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
const open = (path: string): SqliteOrderStore => {
  const store = createSqliteStore({ path, busyTimeoutMs: 30_000 });
  stores.push(store);
  return store;
};

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill();
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function seed(store: SqliteOrderStore, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    await store.create({ id, orderNo: `race-${id}`, amount: 100 + i, currency: 'EUR' });
    ids.push(id);
  }
  return ids;
}

/** Starts a worker process and resolves once it has opened its store. */
function startWorker(path: string, name: string, ids: string[]): Promise<{ child: ChildProcessWithoutNullStreams; result: Promise<string[]> }> {
  const script = fileURLToPath(new URL('./sqlite-race-worker.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, path, name, ids.join(',')], { cwd: process.cwd() });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolveReady, rejectReady) => {
    const result = new Promise<string[]>((resolve, reject) => {
      child.on('exit', (code) => {
        const last = out.trim().split('\n').pop() ?? '';
        if (code === 0 && last.startsWith('{')) resolve((JSON.parse(last) as { won: string[] }).won);
        else reject(new Error(`${name} exited with ${String(code)}: ${err}`));
      });
    });
    result.catch(rejectReady);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.startsWith('ready\n')) resolveReady({ child, result });
    });
  });
}

describe('SQLite store: several connections on one file', () => {
  it('lets exactly one of two store instances win each concurrent transition', async () => {
    const path = join(dir, 'two-instances.sqlite');
    const a = open(path);
    const b = open(path);
    const ids = await seed(a, 50);
    const attempts = ids.flatMap((id) =>
      [a, b].map(async (store, i) => ({
        id,
        ok: (await store.transition(id, 0, { state: 'pending' }, { type: 'transition', source: 'api', actor: `store-${i}` })).ok,
      })),
    );
    const results = await Promise.all(attempts);
    for (const id of ids) expect(results.filter((r) => r.id === id && r.ok)).toHaveLength(1);
    for (const id of ids) {
      expect((await b.get(id))?.version).toBe(1);
      expect(await a.listEvents(id)).toHaveLength(1);
    }
  });

  it('lets exactly one of two processes win each transition, with every event stored once', { timeout: 120_000 }, async () => {
    const path = join(dir, 'two-processes.sqlite');
    const store = open(path);
    const ids = await seed(store, 300);
    const workers = await Promise.all([startWorker(path, 'p1', ids), startWorker(path, 'p2', [...ids].reverse())]);
    for (const { child } of workers) child.stdin.write('go\n');
    const [wonA = [], wonB = []] = await Promise.all(workers.map((w) => w.result));
    expect(wonA.filter((id) => wonB.includes(id))).toEqual([]);
    expect([...wonA, ...wonB].sort()).toEqual([...ids].sort());
    for (const id of ids) {
      const order = await store.get(id);
      const events = await store.listEvents(id);
      expect(order).toMatchObject({ version: 1, state: 'pending' });
      expect(events).toHaveLength(1);
      expect(events[0]?.actor).toBe(order?.data.winner);
      expect(wonA.includes(id) ? 'p1' : 'p2').toBe(order?.data.winner);
    }
  });
});
