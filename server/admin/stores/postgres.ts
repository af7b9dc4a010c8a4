/**
 * AdminStore on PostgreSQL (`pg`). Several shop instances can share it: job creation and item
 * updates are single statements (atomic), payouts are inserted with ON CONFLICT DO NOTHING (the
 * double-submit guard), and migrations run under an advisory lock.
 */
import { ConfigError, KitError } from '../../errors.js';
import type {
  AdminJob,
  AdminStore,
  JobAction,
  JobItemStatus,
  JobItemUpdate,
  JobStatus,
  JobSummary,
  PayoutRecord,
  PayoutStatus,
  UnmatchedNotification,
} from '../store.js';
import type { StaffStore } from '../staff-store.js';
import { migratePostgres } from './migrations.js';
import { createPostgresStaffStore } from './postgres-staff.js';

/** The little of a `pg.Pool` the store uses; an in-process PostgreSQL can stand in for it. */
export interface AdminPgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}
export interface AdminPgPool extends AdminPgQueryable {
  /** When present, migrations run on one dedicated connection (needed for a real pool). */
  connect?(): Promise<AdminPgQueryable & { release(): void }>;
  end?(): Promise<void>;
}

export interface PostgresAdminStoreOptions {
  pool?: AdminPgPool;
  connectionString?: string;
  /** Schema holding the admin_ tables; created when missing. Default `public`. */
  schema?: string;
}

const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,62}$/;

interface JobRow { id: string; action: string; created_by: string; status: string; created_at: Date; updated_at: Date }
interface ItemRow { order_no: string; status: string; message: string | null; updated_at: Date }
interface SummaryRow extends JobRow { pending: number | string; sent: number | string; ok: number | string; failed: number | string }
interface PayoutRow {
  request_id: string; created_by: string; status: string; amount: number | string | bigint; currency: string;
  beneficiary: string; reference: string; transaction_id: string | null; message: string | null;
  request_json: Record<string, unknown>; response_json: Record<string, unknown> | null; created_at: Date; updated_at: Date;
}

interface NotificationRow {
  dedupe_key: string; kind: string; type: string; order_no: string | null; transaction_id: string | null;
  problem: string | null; summary_json: Record<string, string>; received_at: Date;
}

function toNotification(row: NotificationRow): UnmatchedNotification {
  return {
    dedupeKey: row.dedupe_key, kind: row.kind, type: row.type, orderNo: row.order_no, transactionId: row.transaction_id,
    problem: row.problem, summary: { ...row.summary_json }, receivedAt: new Date(row.received_at),
  };
}

async function migrate(pool: AdminPgPool, schema: string): Promise<void> {
  try {
    await migratePostgres(pool, schema);
  } catch (err) {
    throw new KitError('ERR_STORE', 'Admin store migration failed', { cause: err });
  }
}

function toPayout(row: PayoutRow): PayoutRecord {
  return {
    requestId: row.request_id,
    createdBy: row.created_by,
    status: row.status as PayoutStatus,
    amount: Number(row.amount),
    currency: row.currency,
    beneficiary: row.beneficiary,
    reference: row.reference,
    transactionId: row.transaction_id,
    message: row.message,
    request: row.request_json,
    response: row.response_json,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** Creates the store and applies its migrations; resolves when it is ready to use. */
export async function createPostgresAdminStore(options: PostgresAdminStoreOptions): Promise<AdminStore & StaffStore> {
  const schema = options.schema ?? 'public';
  if (!SCHEMA_RE.test(schema)) {
    throw new ConfigError('schema', `"${schema}" is not a plain lower-case identifier`, 'use letters, digits and _ only');
  }
  if (options.pool === undefined && options.connectionString === undefined) {
    throw new ConfigError('pool', 'neither pool nor connectionString was given', 'pass a pg.Pool or a postgres:// URL');
  }
  const owned = options.pool === undefined;
  // node-postgres is loaded only when the store makes its own pool.
  const pool: AdminPgPool = options.pool ?? new (await import('pg')).default.Pool({ connectionString: options.connectionString });
  await migrate(pool, schema);
  const t = (name: string): string => `"${schema}".${name}`;

  async function rows<T>(what: string, text: string, values: unknown[] = []): Promise<T[]> {
    try {
      return (await pool.query(text, values)).rows as T[];
    } catch (err) {
      throw new KitError('ERR_STORE', `Admin store failed to ${what}`, { cause: err });
    }
  }

  async function getJob(id: string): Promise<AdminJob | null> {
    const [job] = await rows<JobRow>('read a job', `SELECT * FROM ${t('admin_jobs')} WHERE id = $1`, [id]);
    if (job === undefined) return null;
    const items = await rows<ItemRow>('read job items',
      `SELECT order_no, status, message, updated_at FROM ${t('admin_job_items')} WHERE job_id = $1 ORDER BY position`, [id]);
    return {
      id: job.id,
      action: job.action as JobAction,
      createdBy: job.created_by,
      status: job.status as JobStatus,
      createdAt: new Date(job.created_at),
      updatedAt: new Date(job.updated_at),
      items: items.map((i) => ({ orderNo: i.order_no, status: i.status as JobItemStatus, message: i.message, updatedAt: new Date(i.updated_at) })),
    };
  }

  return {
    ...createPostgresStaffStore(rows, t),
    async createJob(job) {
      const at = job.createdAt ?? new Date();
      await rows('create a job',
        `WITH j AS (
           INSERT INTO ${t('admin_jobs')} (id, action, created_by, status, created_at, updated_at)
           VALUES ($1, $2, $3, 'running', $4, $4) RETURNING id)
         INSERT INTO ${t('admin_job_items')} (job_id, position, order_no, status, message, updated_at)
         SELECT j.id, u.ord - 1, u.order_no, 'pending', NULL, $4
         FROM j, unnest($5::text[]) WITH ORDINALITY AS u(order_no, ord)`,
        [job.id, job.action, job.createdBy, at, [...job.orderNos]]);
      const created = await getJob(job.id);
      if (created === null) throw new KitError('ERR_STORE', `Job ${job.id} vanished after insert`);
      return created;
    },
    getJob,
    async updateJobItems(jobId, updates) {
      // One row per order (the last update wins) so UPDATE … FROM never sees two matches.
      const last = new Map<string, JobItemUpdate>();
      for (const u of updates) last.set(u.orderNo, u);
      const list = [...last.values()];
      await rows('update job items',
        `WITH u AS (
           SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::boolean[]) AS u(order_no, status, message, set_message)),
         upd AS (
           UPDATE ${t('admin_job_items')} AS i
           SET status = u.status, message = CASE WHEN u.set_message THEN u.message ELSE i.message END, updated_at = now()
           FROM u WHERE i.job_id = $1 AND i.order_no = u.order_no RETURNING 1)
         UPDATE ${t('admin_jobs')} SET updated_at = now() WHERE id = $1`,
        [jobId, list.map((u) => u.orderNo), list.map((u) => u.status), list.map((u) => u.message ?? null), list.map((u) => u.message !== undefined)]);
    },
    async setJobStatus(jobId, status) {
      await rows('set a job status', `UPDATE ${t('admin_jobs')} SET status = $2, updated_at = now() WHERE id = $1`, [jobId, status]);
    },
    async listJobs(query): Promise<JobSummary[]> {
      const list = await rows<SummaryRow>('list jobs',
        `SELECT j.*,
           count(i.order_no) FILTER (WHERE i.status = 'pending') AS pending,
           count(i.order_no) FILTER (WHERE i.status = 'sent') AS sent,
           count(i.order_no) FILTER (WHERE i.status = 'ok') AS ok,
           count(i.order_no) FILTER (WHERE i.status = 'failed') AS failed
         FROM ${t('admin_jobs')} j LEFT JOIN ${t('admin_job_items')} i ON i.job_id = j.id
         WHERE ($1::text IS NULL OR j.status = $1)
         GROUP BY j.id ORDER BY j.created_at DESC, j.id DESC LIMIT $2 OFFSET $3`,
        [query.status ?? null, query.limit, query.offset ?? 0]);
      return list.map((r) => {
        const counts = { pending: Number(r.pending), sent: Number(r.sent), ok: Number(r.ok), failed: Number(r.failed) };
        return {
          id: r.id,
          action: r.action as JobAction,
          createdBy: r.created_by,
          status: r.status as JobStatus,
          createdAt: new Date(r.created_at),
          updatedAt: new Date(r.updated_at),
          total: counts.pending + counts.sent + counts.ok + counts.failed,
          counts,
        };
      });
    },
    async savePayout(p) {
      const [inserted] = await rows<PayoutRow>('save a payout',
        `INSERT INTO ${t('admin_payouts')} (request_id, created_by, status, amount, currency, beneficiary, reference,
           transaction_id, message, request_json, response_json, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12, $13)
         ON CONFLICT (request_id) DO NOTHING RETURNING *`,
        [p.requestId, p.createdBy, p.status, p.amount, p.currency, p.beneficiary, p.reference, p.transactionId, p.message,
          JSON.stringify(p.request), p.response === null ? null : JSON.stringify(p.response), p.createdAt, p.updatedAt]);
      if (inserted !== undefined) return { saved: true, payout: toPayout(inserted) };
      const [existing] = await rows<PayoutRow>('read a payout', `SELECT * FROM ${t('admin_payouts')} WHERE request_id = $1`, [p.requestId]);
      if (existing === undefined) throw new KitError('ERR_STORE', `Payout ${p.requestId} conflicted but cannot be read`);
      return { saved: false, existing: toPayout(existing) };
    },
    async updatePayout(requestId, patch) {
      const [row] = await rows<PayoutRow>('update a payout',
        `UPDATE ${t('admin_payouts')} SET
           status = COALESCE($2, status),
           transaction_id = CASE WHEN $3::boolean THEN $4 ELSE transaction_id END,
           message = CASE WHEN $5::boolean THEN $6 ELSE message END,
           response_json = CASE WHEN $7::boolean THEN $8::jsonb ELSE response_json END,
           updated_at = now()
         WHERE request_id = $1 RETURNING *`,
        [requestId, patch.status ?? null,
          patch.transactionId !== undefined, patch.transactionId ?? null,
          patch.message !== undefined, patch.message ?? null,
          patch.response !== undefined, patch.response == null ? null : JSON.stringify(patch.response)]);
      return row === undefined ? null : toPayout(row);
    },
    async getPayout(requestId) {
      const [row] = await rows<PayoutRow>('read a payout', `SELECT * FROM ${t('admin_payouts')} WHERE request_id = $1`, [requestId]);
      return row === undefined ? null : toPayout(row);
    },
    async listPayouts(query) {
      const list = await rows<PayoutRow>('list payouts',
        `SELECT * FROM ${t('admin_payouts')} ORDER BY created_at DESC, request_id DESC LIMIT $1 OFFSET $2`,
        [query.limit, query.offset ?? 0]);
      return list.map(toPayout);
    },
    async getPayoutByTransactionId(transactionId) {
      const [row] = await rows<PayoutRow>('read a payout',
        `SELECT * FROM ${t('admin_payouts')} WHERE transaction_id = $1 ORDER BY created_at DESC LIMIT 1`, [transactionId]);
      return row === undefined ? null : toPayout(row);
    },
    async recordNotification(n) {
      const inserted = await rows<{ dedupe_key: string }>('record a notification',
        `INSERT INTO ${t('admin_notifications')} (dedupe_key, kind, type, order_no, transaction_id, problem, summary_json, received_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (dedupe_key) DO NOTHING RETURNING dedupe_key`,
        [n.dedupeKey, n.kind, n.type, n.orderNo, n.transactionId, n.problem, JSON.stringify(n.summary), n.receivedAt]);
      return inserted.length === 1;
    },
    async listNotifications(query) {
      const list = await rows<NotificationRow>('list notifications',
        `SELECT * FROM ${t('admin_notifications')} ORDER BY received_at DESC, dedupe_key DESC LIMIT $1 OFFSET $2`,
        [query.limit, query.offset ?? 0]);
      return list.map(toNotification);
    },
    async close() {
      if (owned) await pool.end?.();
    },
  };
}
