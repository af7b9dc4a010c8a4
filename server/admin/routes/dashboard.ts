/** GET /dashboard: how the payments are going (server/admin/dashboard.ts), read-only. */
import type { Router } from 'express';
import { loadDashboard, OUTCOMES } from '../dashboard.js';
import { SEGMENT_LABELS, SEGMENTS } from '../dashboard-chart.js';
import { sendView } from '../views.js';
import type { RouteContext } from './context.js';

export function registerDashboardRoutes(router: Router, ctx: RouteContext): void {
  const { kit } = ctx.options;
  router.get('/dashboard', async (_req, res) => {
    const dashboard = await loadDashboard(kit.store, kit.metrics, new Date());
    sendView(res, ctx.views, 'dashboard', {
      title: 'Dashboard',
      section: 'dashboard',
      dashboard,
      outcomes: OUTCOMES,
      segments: SEGMENTS.map((segment) => ({ segment, label: SEGMENT_LABELS[segment] })),
    });
  });
}
