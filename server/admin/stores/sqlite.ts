/**
 * AdminStore on SQLite (better-sqlite3): the embedded default beside the SQLite order store.
 * Pass `database` to share the shop's connection (tables are prefixed `admin_`), or `path`.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { KitError } from '../../errors.js';
import type {
  AdminJob,
  AdminStore,
  JobAction,
  JobItemStatus,
  JobStatus,
  PayoutRecord,
  PayoutStatus,
  UnmatchedNotification,
} from '../store.js';
import type { StaffStore } from '../staff-store.js';
import { migrateSqlite } from './migrations.js';
import { createSqliteStaffStore } from './sqlite-staff.js';
import { emptyCounts, parseJsonObject } from './shared.js';

export type SqliteAdminStoreOptions =
  | { path: string; database?: undefined }
  | { database: Database.Database; path?: undefined };

interface JobRow { id: string; action: string; created_by: string; status: string; created_at: number; updated_at: number }
interface ItemRow { order_no: string; status: string; message: string | null; updated_at: number }
interface PayoutRow {
  request_id: string; created_by: string; status: string; amount: number; currency: string; beneficiary: string;
  reference: string; transaction_id: string | null; message: string | null; request_json: string;
  response_json: string | null; created_at: number; updated_at: number;
}

interface NotificationRow {
  dedupe_key: string; kind: string; type: string; order_no: string | null; transaction_id: string | null;
  problem: string | null; summary_json: string; received_at: number;
}

function toNotification(row: NotificationRow): UnmatchedNotification {
  return {
    dedupeKey: row.dedupe_key, kind: row.kind, type: row.type, orderNo: row.order_no, transactionId: row.transaction_id,
    problem: row.problem, summary: (parseJsonObject(row.summary_json) ?? {}) as Record<string, string>, receivedAt: new Date(row.received_at),
  };
}

function toPayout(row: PayoutRow): PayoutRecord {
  return {
    requestId: row.request_id,
    createdBy: row.created_by,
    status: row.status as PayoutStatus,
    amount: row.amount,
    currency: row.currency,
    beneficiary: row.beneficiary,
    reference: row.reference,
    transactionId: row.transaction_id,
    message: row.message,
    request: parseJsonObject(row.request_json) ?? {},
    response: parseJsonObject(row.response_json),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function storeError(err: unknown, what: string): KitError {
  return err instanceof KitError ? err : new KitError('ERR_STORE', `Admin store failed to ${what}`, { cause: err });
}

export function createSqliteAdminStore(options: SqliteAdminStoreOptions): AdminStore & StaffStore {
  let db: Database.Database;
  const owned = options.database === undefined;
  if (options.database !== undefined) {
    db = options.database;
  } else {
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
    db = new Database(options.path);
    db.pragma('journal_mode = WAL');
    // Payout records must be on disk before the payout is sent; better-sqlite3's WAL default
    // (NORMAL) does not fsync at COMMIT. Staff writes are rare, so FULL costs nothing here.
    db.pragma('synchronous = FULL');
  }
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrateSqlite(db);

  const s = {
    insertJob: db.prepare('INSERT INTO admin_jobs (id, action, created_by, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)'),
    insertItem: db.prepare('INSERT INTO admin_job_items (job_id, position, order_no, status, message, updated_at) VALUES (?, ?, ?, ?, NULL, ?)'),
    getJob: db.prepare<[string], JobRow>('SELECT * FROM admin_jobs WHERE id = ?'),
    items: db.prepare<[string], ItemRow>('SELECT order_no, status, message, updated_at FROM admin_job_items WHERE job_id = ? ORDER BY position'),
    updateItem: db.prepare('UPDATE admin_job_items SET status = ?, message = COALESCE(?, message), updated_at = ? WHERE job_id = ? AND order_no = ?'),
    updateItemClear: db.prepare('UPDATE admin_job_items SET status = ?, message = NULL, updated_at = ? WHERE job_id = ? AND order_no = ?'),
    touchJob: db.prepare('UPDATE admin_jobs SET updated_at = ? WHERE id = ?'),
    setStatus: db.prepare('UPDATE admin_jobs SET status = ?, updated_at = ? WHERE id = ?'),
    listJobs: db.prepare<[string | null, string | null, number, number], JobRow>(
      'SELECT * FROM admin_jobs WHERE (? IS NULL OR status = ?) ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?',
    ),
    insertPayout: db.prepare(
      `INSERT INTO admin_payouts (request_id, created_by, status, amount, currency, beneficiary, reference, transaction_id,
         message, request_json, response_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (request_id) DO NOTHING`,
    ),
    getPayout: db.prepare<[string], PayoutRow>('SELECT * FROM admin_payouts WHERE request_id = ?'),
    updatePayout: db.prepare(
      'UPDATE admin_payouts SET status = ?, transaction_id = ?, message = ?, response_json = ?, updated_at = ? WHERE request_id = ?',
    ),
    counts: db.prepare<[string], { status: string; n: number }>(
      'SELECT status, COUNT(*) AS n FROM admin_job_items WHERE job_id = ? GROUP BY status',
    ),
    listPayouts: db.prepare<[number, number], PayoutRow>('SELECT * FROM admin_payouts ORDER BY created_at DESC, request_id DESC LIMIT ? OFFSET ?'),
    payoutByTransaction: db.prepare<[string], PayoutRow>('SELECT * FROM admin_payouts WHERE transaction_id = ? ORDER BY created_at DESC LIMIT 1'),
    insertNotification: db.prepare(
      `INSERT INTO admin_notifications (dedupe_key, kind, type, order_no, transaction_id, problem, summary_json, received_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dedupe_key) DO NOTHING`,
    ),
    listNotifications: db.prepare<[number, number], NotificationRow>(
      'SELECT * FROM admin_notifications ORDER BY received_at DESC, dedupe_key DESC LIMIT ? OFFSET ?',
    ),
  };

  function readJob(id: string): AdminJob | null {
    const row = s.getJob.get(id);
    if (row === undefined) return null;
    return {
      id: row.id,
      action: row.action as JobAction,
      createdBy: row.created_by,
      status: row.status as JobStatus,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
      items: s.items.all(id).map((i) => ({
        orderNo: i.order_no,
        status: i.status as JobItemStatus,
        message: i.message,
        updatedAt: new Date(i.updated_at),
      })),
    };
  }

  // better-sqlite3 is synchronous; each method runs its statements then resolves.
  function run<T>(what: string, fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(storeError(err, what));
    }
  }

  return {
    ...createSqliteStaffStore(db, run),
    createJob: (job) =>
      run('create a job', () => {
        const at = (job.createdAt ?? new Date()).getTime();
        db.transaction(() => {
          if (s.getJob.get(job.id) !== undefined) throw new KitError('ERR_STORE', `Job ${job.id} already exists`);
          s.insertJob.run(job.id, job.action, job.createdBy, 'running', at, at);
          job.orderNos.forEach((orderNo, position) => s.insertItem.run(job.id, position, orderNo, 'pending', at));
        })();
        const created = readJob(job.id);
        if (created === null) throw new KitError('ERR_STORE', `Job ${job.id} vanished after insert`);
        return created;
      }),
    getJob: (id) => run('read a job', () => readJob(id)),
    updateJobItems: (jobId, updates) =>
      run('update job items', () => {
        const at = Date.now();
        db.transaction(() => {
          for (const u of updates) {
            if (u.message === null) s.updateItemClear.run(u.status, at, jobId, u.orderNo);
            else s.updateItem.run(u.status, u.message ?? null, at, jobId, u.orderNo);
          }
          s.touchJob.run(at, jobId);
        })();
      }),
    setJobStatus: (jobId, status) => run('set a job status', () => void s.setStatus.run(status, Date.now(), jobId)),
    listJobs: (query) =>
      run('list jobs', () =>
        s.listJobs
          .all(query.status ?? null, query.status ?? null, query.limit, query.offset ?? 0)
          .map((row) => {
            const counts = emptyCounts();
            for (const c of s.counts.all(row.id)) counts[c.status as JobItemStatus] = c.n;
            return {
              id: row.id,
              action: row.action as JobAction,
              createdBy: row.created_by,
              status: row.status as JobStatus,
              createdAt: new Date(row.created_at),
              updatedAt: new Date(row.updated_at),
              total: counts.pending + counts.sent + counts.ok + counts.failed,
              counts,
            };
          }),
      ),
    savePayout: (p) =>
      run('save a payout', () => {
        const result = s.insertPayout.run(
          p.requestId, p.createdBy, p.status, p.amount, p.currency, p.beneficiary, p.reference, p.transactionId,
          p.message, JSON.stringify(p.request), p.response === null ? null : JSON.stringify(p.response),
          p.createdAt.getTime(), p.updatedAt.getTime(),
        );
        const row = s.getPayout.get(p.requestId);
        if (row === undefined) throw new KitError('ERR_STORE', `Payout ${p.requestId} vanished after insert`);
        return result.changes === 1 ? { saved: true as const, payout: toPayout(row) } : { saved: false as const, existing: toPayout(row) };
      }),
    updatePayout: (requestId, patch) =>
      run('update a payout', () => {
        const row = s.getPayout.get(requestId);
        if (row === undefined) return null;
        const cur = toPayout(row);
        const next = { ...cur, ...patch };
        s.updatePayout.run(
          next.status, next.transactionId, next.message, next.response === null ? null : JSON.stringify(next.response),
          Date.now(), requestId,
        );
        const updated = s.getPayout.get(requestId);
        return updated === undefined ? null : toPayout(updated);
      }),
    getPayout: (requestId) =>
      run('read a payout', () => {
        const row = s.getPayout.get(requestId);
        return row === undefined ? null : toPayout(row);
      }),
    listPayouts: (query) => run('list payouts', () => s.listPayouts.all(query.limit, query.offset ?? 0).map(toPayout)),
    getPayoutByTransactionId: (transactionId) =>
      run('read a payout', () => {
        const row = s.payoutByTransaction.get(transactionId);
        return row === undefined ? null : toPayout(row);
      }),
    recordNotification: (n) =>
      run('record a notification', () =>
        s.insertNotification.run(
          n.dedupeKey, n.kind, n.type, n.orderNo, n.transactionId, n.problem, JSON.stringify(n.summary), n.receivedAt.getTime(),
        ).changes === 1),
    listNotifications: (query) => run('list notifications', () => s.listNotifications.all(query.limit, query.offset ?? 0).map(toNotification)),
    close: () =>
      run('close', () => {
        if (owned && db.open) db.close();
      }),
  };
}
