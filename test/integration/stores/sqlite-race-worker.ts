/**
 * One contender in the two-process SQLite race: opens its own store on the shared file, says
 * "ready", waits for "go" on stdin, tries to move every listed order from version 0, and prints
 * the ids it won as JSON.
 * Usage: node --import tsx sqlite-race-worker.ts <db path> <name> <comma-separated ids>
 */
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';

const [path, name, idList] = process.argv.slice(2);
if (!path || !name || !idList) throw new Error('usage: sqlite-race-worker <db path> <name> <ids>');
const store = createSqliteStore({ path, busyTimeoutMs: 30_000 });
process.stdout.write('ready\n');
await new Promise<void>((resolve) => {
  process.stdin.once('data', () => {
    resolve();
  });
});
const won: string[] = [];
for (const id of idList.split(',')) {
  const result = await store.transition(id, 0, { state: 'pending', data: { winner: name } }, { type: 'transition', source: 'api', actor: name });
  if (result.ok) won.push(id);
}
await store.close();
process.stdout.write(`${JSON.stringify({ won })}\n`);
process.stdin.destroy();
