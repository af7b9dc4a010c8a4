/** Batch jobs: the new-job form and job list, starting a job, the job page and resume. */
import type { Router } from 'express';
import { ValidationError } from '../../errors.js';
import { first } from '../../http/form-body.js';
import { ACTION_LABELS } from '../gateway-actions.js';
import { MAX_JOB_ORDERS, parseOrderList } from '../order-list.js';
import { formOf } from '../security.js';
import { JOB_ACTIONS, type JobAction } from '../store.js';
import { sendError, sendView } from '../views.js';
import { param, redirect, staffOf } from './context.js';
import type { RouteContext } from './context.js';
import { JOB_ACTION_OPTIONS } from './orders.js';

/** A job whose store row changed this recently is treated as running (maybe in another instance). */
const RECENT_MS = 30_000;

function parseAction(value: string): JobAction {
  if (!(JOB_ACTIONS as readonly string[]).includes(value)) {
    throw new ValidationError([{ field: 'action', message: `must be one of ${JOB_ACTIONS.join(', ')}` }]);
  }
  return value as JobAction;
}

export function registerBatchRoutes(router: Router, ctx: RouteContext): void {
  const { adminStore } = ctx.options;

  router.get('/batch', async (_req, res) => {
    const jobs = await adminStore.listJobs({ limit: 30 });
    sendView(res, ctx.views, 'batch', {
      title: 'Batch jobs',
      section: 'batch',
      jobs,
      jobActions: JOB_ACTION_OPTIONS,
      actionLabels: ACTION_LABELS,
      maxOrders: MAX_JOB_ORDERS,
      form: { action: 'capture', ordersText: '' },
    });
  });

  router.post('/batch', async (_req, res) => {
    const fields = formOf(res);
    const action = parseAction(first(fields, 'action'));
    const text = [...(fields.orders_text ?? []), ...(fields.orders_file ?? [])].join('\n');
    const orderNos = parseOrderList(text, fields.orders ?? []);
    const job = await ctx.jobs.create(staffOf(res), action, orderNos);
    redirect(ctx, res, `/batch/${job.id}`, { kind: 'ok', text: `${ACTION_LABELS[action]} job started for ${orderNos.length} orders.` });
  });

  router.get('/batch/:id', async (req, res) => {
    const job = await adminStore.getJob(param(req, 'id'));
    if (job === null) {
      sendError(res, ctx.views, 404, 'Job not found', 'No batch job has this id.');
      return;
    }
    const counts = { pending: 0, sent: 0, ok: 0, failed: 0, total: job.items.length };
    for (const item of job.items) counts[item.status] += 1;
    const running = job.status === 'running' && ctx.jobs.isRunning(job.id);
    // Still changing without running here: another instance may be running it; keep refreshing.
    const recent = job.status === 'running' && Date.now() - job.updatedAt.getTime() < RECENT_MS;
    const refreshing = running || recent;
    // The page's script fetches the page itself to stay current (no meta refresh: WCAG 2.2.1).
    if (refreshing) res.setHeader('Content-Security-Policy', `${String(res.getHeader('Content-Security-Policy'))};connect-src 'self'`);
    sendView(res, ctx.views, 'job', {
      title: `${ACTION_LABELS[job.action]} job`,
      section: 'batch',
      job,
      counts,
      running,
      refreshing,
      cspNonce: res.locals.cspNonce as string,
      actionLabels: ACTION_LABELS,
    });
  });

  router.post('/batch/:id/resume', async (req, res) => {
    const job = await adminStore.getJob(param(req, 'id'));
    if (job === null) {
      sendError(res, ctx.views, 404, 'Job not found', 'No batch job has this id; nothing was resumed.');
      return;
    }
    if (job.status === 'done') {
      redirect(ctx, res, `/batch/${job.id}`, { kind: 'ok', text: 'This job has already finished.' });
      return;
    }
    const started = ctx.jobs.start(job.id, staffOf(res).id);
    redirect(ctx, res, `/batch/${job.id}`, started
      ? { kind: 'ok', text: 'Job resumed. Orders already sent are settled by query sync, never sent twice.' }
      : { kind: 'warning', text: 'This job is already running.' });
  });
}
