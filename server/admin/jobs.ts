/**
 * Batch jobs: one action over many orders, recorded in the AdminStore before anything is sent,
 * then run in the background in rounds (each round one client call, which the client splits to
 * the gateway's per-request limit).
 *
 * Crash safety rests on one rule: before an order is sent, an event with the dedupe key
 * `job:<jobId>:<action>` is appended to it. Whoever resumes the job (at start-up or with the
 * resume button) and finds that event already there does NOT send the order again: the order
 * was, or may have been, sent, so its outcome is settled by query sync instead. A crash at any
 * point therefore never acts twice on one order.
 */
import { randomUUID } from 'node:crypto';
import { ValidationError } from '../errors.js';
import { BATCH_LIMITS } from '../gateway/schemas/batch.js';
import type { Logger } from '../logging.js';
import { capturableOf, requestCapture, withdrawCaptureRequest } from '../orders/capture.js';
import type { Order } from '../orders/types.js';
import {
  actionEventData, applyOutcome, ineligibleReason, reachedGoal, refundableOf, reserveRefund, sendAction,
} from './gateway-actions.js';
import type { ActionOutcome } from './gateway-actions.js';
import type { AdminKit, Staff } from './options.js';
import type { AdminJob, AdminStore, JobAction, JobItemUpdate } from './store.js';

export interface JobRunnerOptions {
  kit: AdminKit;
  adminStore: AdminStore;
  logger: Logger;
  /** Gateway requests in flight per job: a round holds `limit × concurrency` orders. */
  concurrency: number;
}

export interface JobRunner {
  /** Checks the orders exist, records the job, starts it in the background and returns it. */
  create(staff: Staff, action: JobAction, orderNos: readonly string[]): Promise<AdminJob>;
  /** Starts (or resumes) a job in the background; false when it already runs in this process. */
  start(jobId: string, actor?: string): boolean;
  isRunning(jobId: string): boolean;
  /** Resumes every unfinished job not running in this process; returns their ids. */
  resumeAll(): Promise<string[]>;
  /** Resolves when no job runs in this process. */
  idle(): Promise<void>;
}

const OPERATION: Record<JobAction, keyof typeof BATCH_LIMITS> = {
  capture: 'capture',
  cancel: 'cancel',
  refund: 'refund',
  review_approve: 'review',
  review_reject: 'review',
};

/** Apply results after which the order shows the gateway's answer. */
const STORED: readonly string[] = ['applied', 'noop', 'duplicate'];

export function markerKey(jobId: string, action: JobAction): string {
  return `job:${jobId}:${action}`;
}

async function eachLimit<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await task(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const { kit, adminStore, logger } = options;
  const active = new Map<string, Promise<void>>();

  /** Settles orders whose marker exists by query sync; never sends them again. */
  async function settleBySync(job: AdminJob, orders: readonly Order[], actor: string): Promise<JobItemUpdate[]> {
    const updates: JobItemUpdate[] = [];
    await eachLimit(orders, 4, async (order) => {
      try {
        const result = await kit.engine.confirm(order.id, 'admin', actor);
        const now = result.order ?? order;
        const state = now.state.replace(/_/g, ' ');
        updates.push(reachedGoal(now, job.action)
          ? { orderNo: order.orderNo, status: 'ok', message: `settled by query sync (not re-sent): now ${state}` }
          : { orderNo: order.orderNo, status: 'failed', message: `not re-sent: it may already have reached the gateway; query sync shows ${state}. Check it on the order page` });
      } catch (err) {
        logger.warn({ err, jobId: job.id, orderNo: order.orderNo }, 'admin job: query sync failed');
        updates.push({ orderNo: order.orderNo, status: 'sent', message: 'outcome unknown and query sync failed: resume the job later' });
      }
    });
    return updates;
  }

  async function settleOutcome(job: AdminJob, order: Order, outcome: ActionOutcome, actor: string): Promise<JobItemUpdate> {
    const marker = markerKey(job.id, job.action);
    await kit.engine.record(order.id, {
      type: 'admin_action', source: 'admin', actor, dedupeKey: `${marker}:result`,
      data: actionEventData(job.action, outcome, { jobId: job.id }),
    });
    if (outcome.outcomeUnknown) {
      return { orderNo: order.orderNo, status: 'sent', message: 'no answer from the gateway: outcome unknown; resume the job to settle it by query sync' };
    }
    if (!outcome.ok) {
      // A refused refund's pending row fails, freeing what it held.
      if (job.action === 'refund') await applyOutcome(kit.engine, order, job.action, outcome, actor, { data: { jobId: job.id } });
      // A refused capture captured nothing: its claim goes, as for one order's capture.
      if (job.action === 'capture') await withdrawCaptureRequest(kit.engine, order, 'admin', actor);
      return { orderNo: order.orderNo, status: 'failed', message: outcome.message ?? 'refused by the gateway' };
    }
    const applied = await applyOutcome(kit.engine, order, job.action, outcome, actor, {
      dedupeKey: `${marker}:applied`,
      data: { jobId: job.id },
    });
    const state = (applied.order?.state ?? order.state).replace(/_/g, ' ');
    if (!STORED.includes(applied.status)) {
      return { orderNo: order.orderNo, status: 'ok', message: `accepted by the gateway, but the order was not updated (${applied.status}); use query sync` };
    }
    return { orderNo: order.orderNo, status: 'ok', message: `now ${state}` };
  }

  async function runRound(job: AdminJob, orderNos: readonly string[], actor: string): Promise<void> {
    const marker = markerKey(job.id, job.action);
    const before: JobItemUpdate[] = [];
    const toSend: Order[] = [];
    const toSync: Order[] = [];
    const refundRequests = new Map<string, { refundAmount: number; refundId: string }>();
    for (const orderNo of orderNos) {
      const order = await kit.store.getByOrderNo(orderNo);
      if (order === null) {
        before.push({ orderNo, status: 'failed', message: 'not sent: no such order' });
        continue;
      }
      const refunds = job.action === 'refund' ? await kit.store.listRefunds(order.id) : [];
      const why = ineligibleReason(order, job.action, refunds);
      if (why !== null) {
        before.push({ orderNo, status: 'failed', message: why });
        continue;
      }
      const mark = await kit.engine.record(order.id, {
        type: 'admin_action', source: 'admin', actor, dedupeKey: marker,
        data: { action: job.action, jobId: job.id, phase: 'sending' },
      });
      if (!mark.appended) {
        toSync.push(order);
        continue;
      }
      if (job.action === 'refund') {
        // A full refund of what remains, held by a pending ledger row before it is sent.
        const amount = refundableOf(order, refunds);
        const reserved = await reserveRefund(kit.engine, order, amount, actor, { jobId: job.id });
        if ('refused' in reserved) {
          before.push({ orderNo, status: 'failed', message: `not sent: ${reserved.refused}` });
          continue;
        }
        refundRequests.set(order.id, { refundAmount: amount, refundId: reserved.id });
      }
      if (job.action === 'capture') {
        // The capture claim, as for one order's capture: the gateway's report of it repeats the
        // authorised amount, and another capture under way (or with its answer lost) comes first.
        try {
          await requestCapture(kit.engine, order, capturableOf(order), 'admin', actor);
        } catch (err) {
          if (!(err instanceof Error && 'code' in err && err.code === 'ERR_ORDER_STATE')) throw err;
          before.push({ orderNo, status: 'failed', message: `not sent: ${err.message}` });
          continue;
        }
      }
      toSend.push(order);
    }
    before.push(...toSend.map((o) => ({ orderNo: o.orderNo, status: 'sent' as const, message: null })));
    await adminStore.updateJobItems(job.id, before);

    let outcomes: ActionOutcome[];
    try {
      outcomes = await sendAction(kit.client, job.action, toSend.map((order) => ({ order, ...refundRequests.get(order.id) })));
    } catch (err) {
      // The client checks every order before sending anything: refused input means nothing left.
      // Any other exception stops the job with these orders `sent`, to be settled on resume.
      if (!(err instanceof ValidationError)) throw err;
      if (job.action === 'capture') for (const order of toSend) await withdrawCaptureRequest(kit.engine, order, 'admin', actor);
      await adminStore.updateJobItems(job.id, toSend.map((o) => ({ orderNo: o.orderNo, status: 'failed' as const, message: `not sent: ${err.message}` })));
      outcomes = [];
    }
    const after: JobItemUpdate[] = [];
    for (const outcome of outcomes) after.push(await settleOutcome(job, outcome.request.order, outcome, actor));
    after.push(...(await settleBySync(job, toSync, actor)));
    await adminStore.updateJobItems(job.id, after);
  }

  async function run(jobId: string, actorOverride?: string): Promise<void> {
    const job = await adminStore.getJob(jobId);
    if (job === null || job.status === 'done') return;
    const actor = actorOverride ?? job.createdBy;
    // Orders a previous run handed to the gateway: outcome unknown, settle by query.
    const sentNos = new Set(job.items.filter((i) => i.status === 'sent').map((i) => i.orderNo));
    if (sentNos.size > 0) {
      const sent = (await Promise.all([...sentNos].map((no) => kit.store.getByOrderNo(no)))).filter((o): o is Order => o !== null);
      const missing = [...sentNos].filter((no) => !sent.some((o) => o.orderNo === no));
      await adminStore.updateJobItems(job.id, [
        ...(await settleBySync(job, sent, actor)),
        ...missing.map((orderNo) => ({ orderNo, status: 'failed' as const, message: 'no such order' })),
      ]);
    }
    const pending = job.items.filter((i) => i.status === 'pending').map((i) => i.orderNo);
    const size = BATCH_LIMITS[OPERATION[job.action]] * options.concurrency;
    for (let i = 0; i < pending.length; i += size) await runRound(job, pending.slice(i, i + size), actor);
    const final = await adminStore.getJob(job.id);
    const open = final?.items.some((i) => i.status === 'pending' || i.status === 'sent') ?? false;
    if (!open) await adminStore.setJobStatus(job.id, 'done');
  }

  function start(jobId: string, actor?: string): boolean {
    if (active.has(jobId)) return false;
    const running = run(jobId, actor)
      .catch((err: unknown) => {
        logger.error({ err, jobId }, 'admin job stopped before finishing; resume it to continue');
      })
      .finally(() => active.delete(jobId));
    active.set(jobId, running);
    return true;
  }

  return {
    async create(staff, action, orderNos) {
      const unknown: string[] = [];
      for (const orderNo of orderNos) if ((await kit.store.getByOrderNo(orderNo)) === null) unknown.push(orderNo);
      if (unknown.length > 0) {
        const shown = unknown.slice(0, 5).join(', ') + (unknown.length > 5 ? ` and ${unknown.length - 5} more` : '');
        throw new ValidationError([{ field: 'orders', message: `unknown order numbers: ${shown}` }]);
      }
      const job = await adminStore.createJob({ id: randomUUID(), action, createdBy: staff.id, orderNos });
      start(job.id);
      return job;
    },
    start,
    isRunning: (jobId) => active.has(jobId),
    async resumeAll() {
      const started: string[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = await adminStore.listJobs({ status: 'running', limit: 100, offset });
        for (const job of page) if (start(job.id)) started.push(job.id);
        if (page.length < 100) break;
      }
      return started;
    },
    async idle() {
      while (active.size > 0) await Promise.all([...active.values()]);
    },
  };
}
