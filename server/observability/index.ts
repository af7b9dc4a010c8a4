export { createKitMetrics, PENDING_SCAN_LIMIT, PENDING_STATES, type KitMetrics, type KitMetricsOptions } from './metrics.js';
export { createMetricsRouter } from './metrics-router.js';
export { createHealth, createHealthRouter, type Health, type HealthCheck, type HealthCheckName, type HealthOptions, type HealthReport } from './health.js';
export { declineFamily, noObserver, type KitObserver, type NotificationResult } from './observer.js';
export { currentTraceparent, inCarriedSpan, inSpan, TRACER_NAME } from '../tracing.js';
