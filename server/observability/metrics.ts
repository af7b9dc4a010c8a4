/**
 * The kit's Prometheus metrics (prom-client): counters and histograms the parts move through the
 * KitObserver calls, and gauges read from the order store when Prometheus scrapes (pending
 * orders, the oldest one's age, the hook outbox's backlog). Names carry their unit; every label
 * comes from a fixed set (see observer.ts).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { OrderStore } from '../orders/store.js';
import type { OrderState } from '../orders/types.js';
import { FINISHED_STATES } from '../orders/order-observer.js';
import { declineFamily, type KitObserver } from './observer.js';

export interface KitMetricsOptions {
  /** The shop's own registry; a new one by default. */
  registry?: Registry | undefined;
  /** Read at scrape time for the pending and outbox gauges. */
  store?: OrderStore | undefined;
}

export interface KitMetrics extends KitObserver {
  registry: Registry;
  /** The registry in Prometheus text format. */
  text(): Promise<string>;
}

/** States still waiting for the gateway's last word. */
export const PENDING_STATES: readonly OrderState[] = ['pending', 'requires_action'];
/** Pending orders read per scrape; the gauge says at least this many beyond it. */
export const PENDING_SCAN_LIMIT = 1000;

const SETTLE_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 900, 1800, 3600, 4 * 3600, 24 * 3600];
const GATEWAY_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createKitMetrics(options: KitMetricsOptions = {}): KitMetrics {
  const registry = options.registry ?? new Registry();
  const registers = [registry];
  const { store } = options;

  const started = new Counter({
    name: 'checkout_payments_started_total', help: 'Payments sent to the gateway, by method.', labelNames: ['method'], registers,
  });
  const finished = new Counter({
    name: 'checkout_payments_finished_total',
    help: 'Payments that reached a final state, by method, outcome and (for declines) the decline code family.',
    labelNames: ['method', 'outcome', 'decline_family'], registers,
  });
  const settleSeconds = new Histogram({
    name: 'checkout_payment_settle_seconds', help: 'Time from the order being created to its final state.',
    labelNames: ['method', 'outcome'], buckets: SETTLE_BUCKETS, registers,
  });
  const notifications = new Counter({
    name: 'checkout_notifications_total', help: 'Gateway notifications received, by how they ended.', labelNames: ['result'], registers,
  });
  const gatewayRequests = new Counter({
    name: 'checkout_gateway_requests_total', help: 'Gateway requests, by operation and outcome.', labelNames: ['operation', 'outcome'], registers,
  });
  const gatewaySeconds = new Histogram({
    name: 'checkout_gateway_request_duration_seconds', help: 'Gateway request latency, by operation and outcome.',
    labelNames: ['operation', 'outcome'], buckets: GATEWAY_BUCKETS, registers,
  });
  const gatewayTimeouts = new Counter({
    name: 'checkout_gateway_timeouts_total', help: 'Gateway requests that got no answer in time, by operation.', labelNames: ['operation'], registers,
  });
  const sweeperRuns = new Counter({ name: 'checkout_sweeper_runs_total', help: 'Sweeper runs finished.', registers });
  const sweeperSettled = new Counter({
    name: 'checkout_sweeper_settled_total', help: 'Orders the sweeper changed, by result (settled, expired, missed_change, error).', labelNames: ['result'], registers,
  });
  const hookFailures = new Counter({
    name: 'checkout_hook_failures_total', help: 'Failed hook deliveries from the outbox, by hook and whether it was given up.',
    labelNames: ['hook', 'final'], registers,
  });
  const rateLimited = new Counter({
    name: 'checkout_rate_limited_total', help: 'Requests refused by a rate limit, by limiter.', labelNames: ['limiter'], registers,
  });
  const cardTesting = new Counter({
    name: 'checkout_card_testing_suspected_total', help: 'Payment attempts that look like card testing, by signal.', labelNames: ['signal'], registers,
  });

  if (store !== undefined) {
    // Read when scraped, so every instance reports the shared store's figures.
    const storeErrors = new Counter({
      name: 'checkout_metrics_store_errors_total', help: 'Scrapes where the store could not be read (the store gauges kept their last value).', registers,
    });
    /** A store that fails must not fail the whole scrape: the other figures matter most then. */
    const readOrKeep = async (read: () => Promise<void>): Promise<void> => {
      try {
        await read();
      } catch {
        storeErrors.inc();
      }
    };
    new Gauge({
      name: 'checkout_orders_pending', help: `Orders waiting for the gateway's final answer (counted up to ${PENDING_SCAN_LIMIT}).`, registers,
      async collect() {
        await readOrKeep(async () => {
          this.set((await store.list({ states: PENDING_STATES, limit: PENDING_SCAN_LIMIT })).length);
        });
      },
    });
    new Gauge({
      name: 'checkout_orders_oldest_pending_age_seconds', help: 'Age of the oldest order still pending since its last change (0 when none).', registers,
      async collect() {
        await readOrKeep(async () => {
          const [oldest] = await store.listDue({ states: PENDING_STATES, updatedBefore: new Date(Date.now() + 1000), limit: 1 });
          this.set(oldest === undefined ? 0 : Math.max(0, (Date.now() - oldest.updatedAt.getTime()) / 1000));
        });
      },
    });
    new Gauge({
      name: 'checkout_hook_outbox_entries', help: 'Hook calls in the outbox, by status (pending, dead).', labelNames: ['status'], registers,
      async collect() {
        await readOrKeep(async () => {
          const counts = await store.countOutbox();
          this.set({ status: 'pending' }, counts.pending);
          this.set({ status: 'dead' }, counts.dead);
        });
      },
    });
  }

  return {
    registry,
    text: () => registry.metrics(),
    paymentStarted(method) {
      started.inc({ method });
    },
    paymentFinished(method, state, resultCode, createdAt) {
      if (!FINISHED_STATES.has(state)) return;
      const m = method ?? 'none';
      finished.inc({ method: m, outcome: state, decline_family: state === 'declined' ? declineFamily(resultCode) : '' });
      settleSeconds.observe({ method: m, outcome: state }, Math.max(0, (Date.now() - createdAt.getTime()) / 1000));
    },
    notification(result) {
      notifications.inc({ result });
    },
    gatewayCall(operation, outcome, seconds) {
      gatewayRequests.inc({ operation, outcome });
      gatewaySeconds.observe({ operation, outcome }, seconds);
      if (outcome === 'timeout') gatewayTimeouts.inc({ operation });
    },
    sweepFinished(figures) {
      sweeperRuns.inc();
      if (figures.settled > 0) sweeperSettled.inc({ result: 'settled' }, figures.settled);
      if (figures.expired > 0) sweeperSettled.inc({ result: 'expired' }, figures.expired);
      const errors = figures.errors + (figures.revisits?.errors ?? 0);
      if (errors > 0) sweeperSettled.inc({ result: 'error' }, errors);
      if ((figures.revisits?.changed ?? 0) > 0) sweeperSettled.inc({ result: 'missed_change' }, figures.revisits?.changed);
    },
    hookFailed(hook, gaveUp) {
      hookFailures.inc({ hook, final: gaveUp ? 'true' : 'false' });
    },
    rateLimited(limiter) {
      rateLimited.inc({ limiter });
    },
    cardTestingSuspected(signal) {
      cardTesting.inc({ signal });
    },
  };
}
