/**
 * `GET /metrics` for Prometheus. Mount it behind the shop's own auth or on an internal port
 * (docs/operations.md): the figures say how the shop's payments are going.
 */
import { Router } from 'express';
import type { KitMetrics } from './metrics.js';

export function createMetricsRouter(metrics: KitMetrics): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    const text = await metrics.text();
    res.set('Cache-Control', 'no-store').type(metrics.registry.contentType).send(text);
  });
  return router;
}
