/**
 * The refund ledger: one row per refund, keyed by the gateway's `refund_reference_id`
 * (`<transaction_id>-NN`) once it is known, or by a kit-assigned id for a refund staff started
 * whose answer has not come back yet. The order's refunded amount is never added to or
 * overwritten: it is the sum of the succeeded rows, computed in the same atomic step that writes
 * them. `mergeRefunds` is the one rule every store applies, so the engine can plan with it too.
 */
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { zodIssuesToFields } from '../gateway/schemas/common.js';
import type { FactSource } from './types.js';

export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** Who learned of the refund first; `import` marks a total carried over from before the ledger. */
export type RefundSource = FactSource | 'import';

export interface Refund {
  /** Kit-assigned id (the pending row's id when staff started the refund). */
  id: string;
  orderId: string;
  /** The gateway's `refund_reference_id`; null while a staff refund awaits its answer. */
  referenceId: string | null;
  /** The gateway's `refund_reference`, when it gave one. */
  reference: string | null;
  /** Minor units of `currency`, more than zero. */
  amount: number;
  currency: string;
  status: RefundStatus;
  source: RefundSource;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * One refund as a path learned of it. Matched to an existing row by `id`, else by `referenceId`;
 * neither matching inserts a row. The same refund arriving again changes nothing; a pending row
 * may become succeeded or failed, a failed one succeeded (the gateway moved the money after all),
 * a succeeded one never changes. A pending row given the reference another row already holds is
 * folded into that row (the notification came before the answer): one refund, one row.
 */
export interface RefundUpsert {
  id?: string;
  referenceId?: string | null;
  reference?: string | null;
  amount: number;
  currency: string;
  status: RefundStatus;
  source: RefundSource;
}

export type RefundChange =
  | { kind: 'insert'; row: Refund }
  | { kind: 'update'; row: Refund }
  | { kind: 'delete'; row: Refund };

const upsertSchema = z.object({
  id: z.string().min(1).max(100).optional(),
  referenceId: z.string().min(1).max(100).nullable().optional(),
  reference: z.string().min(1).max(100).nullable().optional(),
  amount: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter upper-case ISO 4217 code'),
  status: z.enum(REFUND_STATUSES),
  source: z.enum(['pay', 'return', 'cancel', 'notify', 'sweeper', 'admin', 'api', 'import']),
});

/** Refuses a malformed upsert with ERR_VALIDATION naming the field (`refunds[i].field`). */
export function checkRefundUpserts(upserts: readonly RefundUpsert[]): void {
  upserts.forEach((upsert, i) => {
    const parsed = upsertSchema.strict().safeParse(upsert);
    if (!parsed.success) {
      throw new ValidationError(zodIssuesToFields(parsed.error).map((issue) => ({ ...issue, field: `refunds[${i}].${issue.field}` })));
    }
  });
}

/** The status a row ends with when `incoming` is reported for it. */
export function nextRefundStatus(current: RefundStatus, incoming: RefundStatus): RefundStatus {
  if (current === 'pending') return incoming;
  if (current === 'failed' && incoming === 'succeeded') return 'succeeded';
  return current;
}

function settle(row: Refund, upsert: RefundUpsert, now: Date): Refund {
  const status = nextRefundStatus(row.status, upsert.status);
  const next: Refund = {
    ...row,
    status,
    // A pending row held what staff asked for; the gateway's figure is the one that moved.
    amount: row.status !== status ? upsert.amount : row.amount,
    referenceId: row.referenceId ?? upsert.referenceId ?? null,
    reference: row.reference ?? upsert.reference ?? null,
  };
  const changed = next.status !== row.status || next.amount !== row.amount || next.referenceId !== row.referenceId || next.reference !== row.reference;
  return changed ? { ...next, updatedAt: new Date(now.getTime()) } : row;
}

export interface MergeContext {
  orderId: string;
  now: Date;
  newId: () => string;
}

/** The rows after `upserts`, and what changed (at most one change per row, the last one). */
export function mergeRefunds(existing: readonly Refund[], upserts: readonly RefundUpsert[], ctx: MergeContext): { rows: Refund[]; changes: RefundChange[] } {
  const rows = existing.map((r) => ({ ...r }));
  const changes = new Map<string, RefundChange>();
  const original = new Map(existing.map((r) => [r.id, r]));
  const mark = (kind: RefundChange['kind'], row: Refund): void => {
    const before = changes.get(row.id);
    if (kind === 'update' && before?.kind === 'insert') changes.set(row.id, { kind: 'insert', row });
    else if (kind === 'delete' && before?.kind === 'insert') changes.delete(row.id);
    else changes.set(row.id, { kind, row });
  };
  for (const upsert of upserts) {
    const ref = upsert.referenceId ?? null;
    let byId = upsert.id === undefined ? -1 : rows.findIndex((r) => r.id === upsert.id);
    const byRef = ref === null ? -1 : rows.findIndex((r) => r.referenceId === ref);
    // A row already tied to another reference is a different refund: the id does not match it.
    if (byId >= 0 && ref !== null && rows[byId]?.referenceId !== null && rows[byId]?.referenceId !== ref) byId = -1;
    if (byId >= 0 && byRef >= 0 && byId !== byRef) {
      const placeholder = rows[byId] as Refund;
      rows.splice(byId, 1);
      mark('delete', placeholder);
    }
    const at = byRef >= 0 ? rows.findIndex((r) => r.referenceId === ref) : byId;
    if (at >= 0) {
      const row = rows[at] as Refund;
      const next = settle(row, upsert, ctx.now);
      if (next !== row) {
        rows[at] = next;
        mark('update', next);
      }
      continue;
    }
    const id = upsert.id !== undefined && !rows.some((r) => r.id === upsert.id) && !original.has(upsert.id) ? upsert.id : ctx.newId();
    const row: Refund = {
      id,
      orderId: ctx.orderId,
      referenceId: ref,
      reference: upsert.reference ?? null,
      amount: upsert.amount,
      currency: upsert.currency,
      status: upsert.status,
      source: upsert.source,
      createdAt: new Date(ctx.now.getTime()),
      updatedAt: new Date(ctx.now.getTime()),
    };
    rows.push(row);
    mark('insert', row);
  }
  return { rows, changes: [...changes.values()] };
}

/** Minor units of the rows in `status`. */
export function refundSum(rows: readonly Pick<Refund, 'amount' | 'status'>[], status: RefundStatus): number {
  return rows.reduce((sum, r) => (r.status === status ? sum + r.amount : sum), 0);
}

/** What the order's `refundedAmount` is: the sum of its succeeded refunds. */
export function refundedTotal(rows: readonly Pick<Refund, 'amount' | 'status'>[]): number {
  return refundSum(rows, 'succeeded');
}
