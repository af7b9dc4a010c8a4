/**
 * The admin's own storage: batch jobs (with one status per order) and the payouts staff sent.
 * Orders and their events stay in the OrderStore; this store only remembers what the admin
 * itself started, so a job survives a restart and can be resumed.
 *
 * Rules every adapter keeps:
 * - Reads return fresh copies with `Date` objects; "not found" is `null`, never an exception.
 * - `createJob` is atomic: the job and all its items, or nothing.
 * - `savePayout` inserts only when no payout with that `requestId` exists (the idempotency of
 *   a double submit rests on it) and otherwise returns the stored one.
 */
import type { StaffStore } from './staff-store.js';

export const JOB_ACTIONS = ['capture', 'cancel', 'refund', 'review_approve', 'review_reject'] as const;
export type JobAction = (typeof JOB_ACTIONS)[number];

/** pending: not sent yet; sent: handed to the gateway, result not recorded; ok / failed: settled. */
export const JOB_ITEM_STATUSES = ['pending', 'sent', 'ok', 'failed'] as const;
export type JobItemStatus = (typeof JOB_ITEM_STATUSES)[number];

/** running: still has work (or was interrupted and awaits resume); done: every item settled. */
export type JobStatus = 'running' | 'done';

export interface JobItem {
  orderNo: string;
  status: JobItemStatus;
  /** Gateway or admin message for this order (error text, resulting state). */
  message: string | null;
  updatedAt: Date;
}

export interface AdminJob {
  id: string;
  action: JobAction;
  /** Staff id of who created the job. */
  createdBy: string;
  status: JobStatus;
  createdAt: Date;
  updatedAt: Date;
  /** In the order the job was given. */
  items: JobItem[];
}

export interface JobSummary extends Omit<AdminJob, 'items'> {
  total: number;
  counts: Record<JobItemStatus, number>;
}

export interface NewJob {
  id: string;
  action: JobAction;
  createdBy: string;
  orderNos: readonly string[];
  createdAt?: Date;
}

export interface JobItemUpdate {
  orderNo: string;
  status: JobItemStatus;
  message?: string | null;
}

/**
 * submitting: reserved, being sent. pending: accepted by the gateway, not finished yet (its
 * answer said neither completed nor failed): the payout's notification settles it. unknown: no
 * answer came back; the notification (or the gateway's staff) tells.
 */
export type PayoutStatus = 'submitting' | 'pending' | 'completed' | 'failed' | 'unknown';

export interface PayoutRecord {
  /** The payout's `request_id` (UUID): the idempotency key of a submit. */
  requestId: string;
  createdBy: string;
  status: PayoutStatus;
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
  beneficiary: string;
  reference: string;
  transactionId: string | null;
  /** Gateway status text (e.g. COMPLETED) or the failure reason. */
  message: string | null;
  /** The request as sent, without the signature. */
  request: Record<string, unknown>;
  /** The gateway's reply, when one came back. */
  response: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

export type PayoutPatch = Partial<Pick<PayoutRecord, 'status' | 'transactionId' | 'message' | 'response'>>;

/** A verified notification that no order and no payout matches, kept for staff to look at. */
export interface UnmatchedNotification {
  /** The notification's dedupe key: the same notification redelivered is kept once. */
  dedupeKey: string;
  /** payment, refund, dispute, payout or unrecognised. */
  kind: string;
  /** `webhooks_type` as sent. */
  type: string;
  orderNo: string | null;
  transactionId: string | null;
  /** Why the kit could not read it, when it could not. */
  problem: string | null;
  /** Card-free fields of the notification. */
  summary: Record<string, string>;
  receivedAt: Date;
}

export type SavePayoutResult = { saved: true; payout: PayoutRecord } | { saved: false; existing: PayoutRecord };

/**
 * The StaffStore methods (accounts and sessions of the built-in sign-in) are needed only with
 * the router's `signIn` option; the kit's adapters all have them.
 */
export interface AdminStore extends Partial<StaffStore> {
  /** Stores the job (status running) with every order `pending`. Rejects when the id exists. */
  createJob(job: NewJob): Promise<AdminJob>;
  getJob(id: string): Promise<AdminJob | null>;
  /** Sets the status (and message, when given) of some items; unknown order numbers are ignored. */
  updateJobItems(jobId: string, updates: readonly JobItemUpdate[]): Promise<void>;
  setJobStatus(jobId: string, status: JobStatus): Promise<void>;
  /** Newest first. */
  listJobs(query: { status?: JobStatus; limit: number; offset?: number }): Promise<JobSummary[]>;

  /** Inserts unless a payout with the same requestId exists (then returns it, unchanged). */
  savePayout(payout: PayoutRecord): Promise<SavePayoutResult>;
  updatePayout(requestId: string, patch: PayoutPatch): Promise<PayoutRecord | null>;
  getPayout(requestId: string): Promise<PayoutRecord | null>;
  /** Newest first. */
  listPayouts(query: { limit: number; offset?: number }): Promise<PayoutRecord[]>;
  /** The payout the gateway gave this transaction id (payout notifications name it). */
  getPayoutByTransactionId(transactionId: string): Promise<PayoutRecord | null>;

  /** Keeps a notification no order or payout matches; false when one with its dedupeKey is kept already. */
  recordNotification(notification: UnmatchedNotification): Promise<boolean>;
  /** Newest first. */
  listNotifications(query: { limit: number; offset?: number }): Promise<UnmatchedNotification[]>;

  /** Optional. Releases connections. */
  close?(): Promise<void>;
}

export type { StaffAccount, StaffSessionRecord, StaffStore } from './staff-store.js';
