/** For event-seq-race.test.ts: a process hammering one order. Usage: node --import tsx event-seq-worker.ts <path> <id> <tag> <ops> */
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import { hammer } from './event-seq-hammer.js';

const [path, id, tag, ops] = process.argv.slice(2);
const store = createSqliteStore({ path: path!, busyTimeoutMs: 60_000 });
const runs = await Promise.all([0, 1, 2].map((w) => hammer(store, id!, `${tag!}${w}`, Number(ops))));
await store.close();
process.stdout.write(`${JSON.stringify(runs.flat())}\n`);
