/**
 * What `createCheckoutKit` adds for operations: `kit.metrics` (Prometheus, see metrics.ts),
 * `kit.metricsRouter` (`GET /metrics`), `kit.health()` and `kit.healthRouter` (`/healthz`,
 * `/readyz`). Mount the routers where the shop's monitoring can reach them and shoppers cannot
 * (docs/operations.md).
 */
import type { Router } from 'express';
import type { OrderStore } from '../orders/store.js';
import { createHealth, createHealthRouter, type Health, type HealthOptions } from './health.js';
import { createKitMetrics, type KitMetrics, type KitMetricsOptions } from './metrics.js';
import { createMetricsRouter } from './metrics-router.js';

export interface KitOperations {
  /** The kit's Prometheus metrics; `metrics.registry` is the `metrics.registry` option or a new Registry. */
  metrics: KitMetrics;
  /** `GET /metrics` in Prometheus text format. Mount it behind the shop's auth or on an internal port. */
  metricsRouter: Router;
  /** Store reachable and migrated, gateway reachable, hook outbox not stuck. Never rejects. */
  health: Health;
  /** `GET /healthz` (alive) and `GET /readyz` (200 ready, 503 unready). */
  healthRouter: Router;
}

/** The parts of the kit's resolved options these read (the kit passes its whole config). */
export interface KitOperationsOptions {
  metrics: KitMetricsOptions;
  gateway: { baseUrl: string };
  health: Pick<HealthOptions, 'gatewayTimeoutMs' | 'outboxStuckAfterMs'>;
  fetch?: HealthOptions['fetch'] | undefined;
}

export function createKitOperations(options: KitOperationsOptions, store: OrderStore): KitOperations {
  const metrics = createKitMetrics({ registry: options.metrics.registry, store });
  const health = createHealth({
    store,
    gatewayUrl: options.gateway.baseUrl,
    ...(options.health.gatewayTimeoutMs === undefined ? {} : { gatewayTimeoutMs: options.health.gatewayTimeoutMs }),
    ...(options.health.outboxStuckAfterMs === undefined ? {} : { outboxStuckAfterMs: options.health.outboxStuckAfterMs }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  return { metrics, metricsRouter: createMetricsRouter(metrics), health, healthRouter: createHealthRouter(health) };
}
