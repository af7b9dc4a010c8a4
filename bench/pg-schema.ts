/** The PostgreSQL schema a bench scenario ran in, removed once it is measured. */
import type { PgTarget } from './protocol.js';

/**
 * Drops a run's PostgreSQL schema (the kit's tables in it). DROP waits for every lock on those
 * tables: a session left holding one (a pool not ended, a transaction left open) would stop the
 * run silently, so the wait is bounded and the sessions still busy are reported instead.
 */
export async function dropSchema(target: PgTarget): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    await client.query(`SET lock_timeout = '30s'`);
    await client.query(`DROP SCHEMA IF EXISTS "${target.schema}" CASCADE`);
  } catch (error) {
    const busy = await client.query<Record<string, unknown>>(
      `SELECT pid, application_name, state, wait_event_type, wait_event, now() - xact_start AS in_transaction_for, left(query, 200) AS query
       FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`,
    );
    throw new Error(`could not drop schema ${target.schema}: ${error instanceof Error ? error.message : String(error)}; sessions not idle: ${JSON.stringify(busy.rows)}`, { cause: error });
  } finally {
    await client.end();
  }
}
