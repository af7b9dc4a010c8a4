/**
 * The seeder: a short-lived process that fills a scenario's directory before the server under
 * test opens it — the kit's orders (SQLite), the sandbox's ledger (SQLite) and the requests the
 * load generator will send (JSON). Seeding in its own process keeps its allocations out of the
 * server's memory figure. Reads SeedJob[] (JSON, first argument); prints SeedOutput[] in order.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { CaptureOrderInput } from '../server/gateway/operations/batch.js';
import { createCheckoutKit } from '../server/kit.js';
import { createPostgresStore } from '../server/orders/stores/postgres.js';
import { createSqliteStore } from '../server/orders/stores/sqlite.js';
import { kitOptions, ordersFile } from './fixture.js';
import { openSandbox } from './open-sandbox.js';
import type { SeedJob, SeedOutput } from './protocol.js';
import { notificationRequest, RequestFile, seedGatewayTransactions, seedPayRequests, seedPendingOrders, type SeedTarget } from './seed.js';

const jobs = JSON.parse(process.argv[2] ?? '[]') as SeedJob[];

async function seed(job: SeedJob): Promise<SeedOutput> {
  const { sandbox, ledger } = openSandbox(job.dir, job.kind === 'capture' ? 'manual' : 'auto');
  const db = job.pg === undefined ? new Database(ordersFile(job.dir)) : null;
  // PostgreSQL: each seeded order commits on its own; without waiting for its WAL flush, seeding
  // tens of thousands takes seconds instead of minutes. Only seeding: the server under test uses
  // the store's own pool, with synchronous_commit as the database sets it.
  const pool = job.pg === undefined ? null : new pg.Pool({ connectionString: job.pg.url, options: '-c synchronous_commit=off' });
  const store = job.pg !== undefined && pool !== null ? await createPostgresStore({ pool, schema: job.pg.schema }) : createSqliteStore({ database: db ?? new Database(':memory:') });
  // Only the pay path and the signing secrets matter here: nothing is sent to the gateway.
  const kit = createCheckoutKit({ ...kitOptions('http://127.0.0.1/checkout', 'http://127.0.0.1:9'), store });
  const target: SeedTarget = { kit, ledger, db };
  const output: SeedOutput = {};
  switch (job.kind) {
    case 'notify': {
      const out = new RequestFile(join(job.dir, 'requests.json'));
      await seedPendingOrders(target, 'N', job.count);
      seedGatewayTransactions(target, 'N', job.count, 'captured', (tx) => {
        out.add(notificationRequest(tx));
      });
      out.close();
      output.requestsFile = out.file;
      break;
    }
    case 'pay_direct':
    case 'render': {
      const out = new RequestFile(join(job.dir, 'requests.json'));
      await seedPayRequests(target, 'P', job.count, job.kind === 'pay_direct' ? 'card' : 'hosted', out);
      out.close();
      output.requestsFile = out.file;
      break;
    }
    case 'sweep':
      await seedPendingOrders(target, 'S', job.count);
      seedGatewayTransactions(target, 'S', job.count, 'captured');
      break;
    case 'capture': {
      const inputs: CaptureOrderInput[] = [];
      seedGatewayTransactions(target, 'C', job.count, 'authorized', (tx) => {
        inputs.push({ transaction_id: tx.transactionId, order_no: tx.orderNo, currency: tx.currency, amount: tx.amount });
      });
      output.captureFile = join(job.dir, 'capture.json');
      writeFileSync(output.captureFile, JSON.stringify(inputs));
      break;
    }
  }
  await kit.close();
  await store.close();
  await pool?.end();
  await sandbox.close();
  db?.close();
  return output;
}

const outputs: SeedOutput[] = [];
for (const job of jobs) outputs.push(await seed(job));
process.stdout.write(`${JSON.stringify(outputs)}\n`);
