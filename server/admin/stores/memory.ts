/**
 * The reference AdminStore: everything in process memory, lost on restart (so a batch job
 * cannot be resumed after a crash). Use the SQLite or PostgreSQL adapter in production.
 */
import { KitError } from '../../errors.js';
import type { StaffStore } from '../staff-store.js';
import { createMemoryStaffStore } from './memory-staff.js';
import { summarize } from './shared.js';
import type {
  AdminJob,
  AdminStore,
  JobSummary,
  NewJob,
  PayoutPatch,
  PayoutRecord,
  SavePayoutResult,
  UnmatchedNotification,
} from '../store.js';

function copyJob(job: AdminJob): AdminJob {
  return {
    ...job,
    createdAt: new Date(job.createdAt),
    updatedAt: new Date(job.updatedAt),
    items: job.items.map((i) => ({ ...i, updatedAt: new Date(i.updatedAt) })),
  };
}

function copyPayout(p: PayoutRecord): PayoutRecord {
  return {
    ...p,
    request: structuredClone(p.request),
    response: p.response === null ? null : structuredClone(p.response),
    createdAt: new Date(p.createdAt),
    updatedAt: new Date(p.updatedAt),
  };
}

export function createMemoryAdminStore(options: { now?: () => Date } = {}): AdminStore & StaffStore {
  const now = options.now ?? (() => new Date());
  const jobs = new Map<string, AdminJob>();
  const payouts = new Map<string, PayoutRecord>();
  const notifications = new Map<string, UnmatchedNotification>();
  const copyNotification = (n: UnmatchedNotification): UnmatchedNotification => ({ ...n, summary: { ...n.summary }, receivedAt: new Date(n.receivedAt) });

  return {
    ...createMemoryStaffStore(),
    createJob(input: NewJob): Promise<AdminJob> {
      if (jobs.has(input.id)) return Promise.reject(new KitError('ERR_STORE', `Job ${input.id} already exists`));
      const at = input.createdAt ?? now();
      const job: AdminJob = {
        id: input.id,
        action: input.action,
        createdBy: input.createdBy,
        status: 'running',
        createdAt: at,
        updatedAt: at,
        items: input.orderNos.map((orderNo) => ({ orderNo, status: 'pending', message: null, updatedAt: at })),
      };
      jobs.set(job.id, job);
      return Promise.resolve(copyJob(job));
    },
    getJob(id) {
      const job = jobs.get(id);
      return Promise.resolve(job ? copyJob(job) : null);
    },
    updateJobItems(jobId, updates) {
      const job = jobs.get(jobId);
      if (!job) return Promise.resolve();
      const at = now();
      const byNo = new Map(job.items.map((i) => [i.orderNo, i]));
      for (const u of updates) {
        const item = byNo.get(u.orderNo);
        if (!item) continue;
        item.status = u.status;
        if (u.message !== undefined) item.message = u.message;
        item.updatedAt = at;
      }
      job.updatedAt = at;
      return Promise.resolve();
    },
    setJobStatus(jobId, status) {
      const job = jobs.get(jobId);
      if (job) {
        job.status = status;
        job.updatedAt = now();
      }
      return Promise.resolve();
    },
    listJobs(query): Promise<JobSummary[]> {
      const all = [...jobs.values()]
        .filter((j) => query.status === undefined || j.status === query.status)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
      const offset = query.offset ?? 0;
      return Promise.resolve(all.slice(offset, offset + query.limit).map((j) => summarize(copyJob(j))));
    },
    savePayout(payout): Promise<SavePayoutResult> {
      const existing = payouts.get(payout.requestId);
      if (existing) return Promise.resolve({ saved: false, existing: copyPayout(existing) });
      payouts.set(payout.requestId, copyPayout(payout));
      return Promise.resolve({ saved: true, payout: copyPayout(payout) });
    },
    updatePayout(requestId, patch: PayoutPatch) {
      const p = payouts.get(requestId);
      if (!p) return Promise.resolve(null);
      const next = copyPayout({ ...p, ...patch, updatedAt: now() });
      payouts.set(requestId, next);
      return Promise.resolve(copyPayout(next));
    },
    getPayout(requestId) {
      const p = payouts.get(requestId);
      return Promise.resolve(p ? copyPayout(p) : null);
    },
    listPayouts(query) {
      const all = [...payouts.values()].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
      const offset = query.offset ?? 0;
      return Promise.resolve(all.slice(offset, offset + query.limit).map(copyPayout));
    },
    getPayoutByTransactionId(transactionId) {
      const p = [...payouts.values()].find((x) => x.transactionId === transactionId);
      return Promise.resolve(p ? copyPayout(p) : null);
    },
    recordNotification(n) {
      if (notifications.has(n.dedupeKey)) return Promise.resolve(false);
      notifications.set(n.dedupeKey, copyNotification(n));
      return Promise.resolve(true);
    },
    listNotifications(query) {
      const all = [...notifications.values()].sort((a, b) => b.receivedAt.getTime() - a.receivedAt.getTime());
      const offset = query.offset ?? 0;
      return Promise.resolve(all.slice(offset, offset + query.limit).map(copyNotification));
    },
  };
}
