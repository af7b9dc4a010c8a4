/**
 * The real servers the multi-instance tests need: PostgreSQL at TEST_DATABASE_URL and Redis at
 * TEST_REDIS_URL. There is no in-process stand-in on purpose (several connections, real locks,
 * real network), so a missing or unreachable server skips the tests with a loud notice.
 */
import { createClient } from '@redis/client';
import pg from 'pg';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL;

const PROBE_TIMEOUT_MS = 3000;

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Null when a server answers at TEST_DATABASE_URL, otherwise why not. */
export async function postgresProblem(): Promise<string | null> {
  if (!TEST_DATABASE_URL) return 'TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test)';
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return `PostgreSQL at TEST_DATABASE_URL is unreachable: ${describeError(error)}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Null when a server answers PING at TEST_REDIS_URL, otherwise why not. */
export async function redisProblem(): Promise<string | null> {
  if (!TEST_REDIS_URL) return 'TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)';
  const client = createClient({ url: TEST_REDIS_URL, socket: { connectTimeout: PROBE_TIMEOUT_MS, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.sendCommand(['PING']);
    return null;
  } catch (error) {
    return `Redis at TEST_REDIS_URL is unreachable: ${describeError(error)}`;
  } finally {
    if (client.isOpen) await client.close().catch(() => undefined);
  }
}

/** A banner nobody scrolling the test output can miss. */
export function announceSkip(what: string, problems: readonly (string | null)[]): void {
  const reasons = problems.filter((p): p is string => p !== null);
  if (reasons.length === 0) return;
  const line = '*'.repeat(78);
  console.warn(`\n${line}\n  SKIPPED: ${what}\n${reasons.map((r) => `  - ${r}`).join('\n')}\n${line}\n`);
}
