// Operations' public names: the kit builds these itself (kit.metrics, kit.health and their
// routers); the factories serve a process that wants them without a kit.
export { createKitMetrics, type KitMetrics, type KitMetricsOptions } from './metrics.js';
export { createMetricsRouter } from './metrics-router.js';
export {
  createHealth, createHealthRouter, type Health, type HealthCheck, type HealthCheckName, type HealthOptions, type HealthReport,
} from './health.js';
export type { KitObserver, NotificationResult } from './observer.js';
