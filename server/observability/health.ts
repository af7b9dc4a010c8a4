/**
 * Health for load balancers and Kubernetes probes. `/healthz`: the process answers. `/readyz`:
 * the store answers (and has the latest tables: the hook outbox is read), the gateway answers
 * HTTP within a timeout (any status: it is reachable), and the hook outbox is not stuck (its
 * oldest pending call is not overdue by more than `outboxStuckAfterMs`). Answers name each check
 * and whether it passed, never a URL, a key or an error's text.
 */
import { Router } from 'express';
import type { OrderStore } from '../orders/store.js';

export interface HealthOptions {
  store: OrderStore;
  /** The gateway's base URL; probed with a GET whose answer is not read. */
  gatewayUrl: string;
  /** ms the gateway has to answer the probe. Default 2000. */
  gatewayTimeoutMs?: number;
  /** A pending hook call overdue by more than this makes the kit unready, ms. Default 300000. */
  outboxStuckAfterMs?: number;
  fetch?: typeof fetch;
}

export type HealthCheckName = 'store' | 'gateway' | 'outbox';

export interface HealthCheck {
  name: HealthCheckName;
  ok: boolean;
  /** A short fixed word for a failed check: unreachable, timeout, stuck. */
  problem?: 'unreachable' | 'timeout' | 'stuck';
}

export interface HealthReport {
  ready: boolean;
  checks: HealthCheck[];
}

export interface Health {
  /** Ready means every check passed. Never rejects. */
  (): Promise<HealthReport>;
}

const DEFAULT_GATEWAY_TIMEOUT_MS = 2000;
const DEFAULT_OUTBOX_STUCK_MS = 5 * 60_000;

async function storeCheck(store: OrderStore): Promise<HealthCheck> {
  try {
    await Promise.all([store.list({ limit: 1 }), store.countOutbox()]);
    return { name: 'store', ok: true };
  } catch {
    return { name: 'store', ok: false, problem: 'unreachable' };
  }
}

async function gatewayCheck(url: string, timeoutMs: number, fetcher: typeof fetch): Promise<HealthCheck> {
  try {
    const res = await fetcher(url, { method: 'GET', signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await res.body?.cancel().catch(() => undefined);
    return { name: 'gateway', ok: true };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return { name: 'gateway', ok: false, problem: timedOut ? 'timeout' : 'unreachable' };
  }
}

async function outboxCheck(store: OrderStore, stuckAfterMs: number): Promise<HealthCheck> {
  try {
    const [oldest] = await store.listOutbox({ status: 'pending', limit: 1 });
    const stuck = oldest !== undefined && Date.now() - oldest.nextAttemptAt.getTime() > stuckAfterMs;
    return stuck ? { name: 'outbox', ok: false, problem: 'stuck' } : { name: 'outbox', ok: true };
  } catch {
    return { name: 'outbox', ok: false, problem: 'unreachable' };
  }
}

export function createHealth(options: HealthOptions): Health {
  const fetcher = options.fetch ?? fetch;
  const timeoutMs = options.gatewayTimeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS;
  const stuckAfterMs = options.outboxStuckAfterMs ?? DEFAULT_OUTBOX_STUCK_MS;
  return async () => {
    const checks = await Promise.all([
      storeCheck(options.store),
      gatewayCheck(options.gatewayUrl, timeoutMs, fetcher),
      outboxCheck(options.store, stuckAfterMs),
    ]);
    return { ready: checks.every((c) => c.ok), checks };
  };
}

/** `/healthz` (alive) and `/readyz` (ready: 200, else 503), JSON, never cached. */
export function createHealthRouter(health: Health): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const report = await health();
    res.set('Cache-Control', 'no-store').status(report.ready ? 200 : 503).json({ status: report.ready ? 'ready' : 'unready', checks: report.checks });
  });
  return router;
}
