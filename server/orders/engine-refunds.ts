/**
 * The reconcile engine's refund step, pure: a fact that reports refunds (or a refund outcome)
 * becomes upserts for the order's refund ledger plus the outcome and refunded amount the ledger
 * implies once they are merged. The store writes the rows and the derived total in the same
 * compare-and-set as the transition, so the amount and the state never drift from the rows, and
 * a refund reported by two roads (the staff answer and the gateway's notification) counts once.
 */
import type { PaymentFact, RefundReport } from './engine-types.js';
import { mergeRefunds, refundSum, refundedTotal } from './refunds.js';
import type { Refund, RefundUpsert } from './refunds.js';
import { capturedOf } from './state-machine.js';
import type { Order } from './types.js';

export interface LedgerStep {
  /** The fact with the outcome and refunded amount the merged ledger implies. */
  fact: PaymentFact;
  /** What the transition records (`TransitionExtras.refunds`); may be empty. */
  upserts: RefundUpsert[];
  /** The rows change: the fact is written even when the state does not move. */
  changed: boolean;
  /** The succeeded total grows: `onRefunded` is owed whatever the state moves to (a chargeback too). */
  grew: boolean;
  /** Reasons for staff (over-refund, a total the ledger does not hold, a foreign currency). */
  reasons: string[];
  /** A new pending refund that does not fit in what remains refundable: nothing is written. */
  refused?: string;
}

/** Facts the ledger step handles: those that report refunds or a refund outcome. */
export function isRefundFact(fact: PaymentFact): boolean {
  return fact.refunds !== undefined || fact.listedRefunds !== undefined || fact.outcome === 'partially_refunded' || fact.outcome === 'refunded';
}


/** Minor units staff may still refund: captured less succeeded and pending refunds. */
export function refundableOf(order: Pick<Order, 'amount' | 'capturedAmount'>, rows: readonly Pick<Refund, 'amount' | 'status'>[]): number {
  return Math.max(0, capturedOf(order) - refundedTotal(rows) - refundSum(rows, 'pending'));
}

/**
 * Upserts for `reports`. A succeeded refund whose reference the ledger does not hold settles a
 * pending staff row of the same amount that has no reference yet (its answer was lost or is
 * still on its way): whichever pairing is made, the totals are the same, and the late answer of
 * that row then finds its reference already recorded.
 */
function upsertsOf(order: Order, rows: readonly Refund[], fact: PaymentFact, reports: readonly RefundReport[]): RefundUpsert[] {
  const open = rows.filter((r) => r.status === 'pending' && r.referenceId === null);
  const claimed = new Set(reports.map((r) => r.id).filter((id) => id !== undefined));
  return reports.map((report) => {
    let id = report.id;
    const ref = report.referenceId ?? null;
    if (id === undefined && report.status === 'succeeded' && ref !== null && !rows.some((r) => r.referenceId === ref)) {
      const match = open.findIndex((r) => r.amount === report.amount && !claimed.has(r.id));
      if (match >= 0) {
        id = open[match]?.id;
        open.splice(match, 1);
      }
    }
    return {
      ...(id === undefined ? {} : { id }),
      referenceId: ref,
      reference: report.reference ?? null,
      amount: report.amount,
      currency: report.currency ?? order.currency,
      status: report.status,
      source: fact.source,
    };
  });
}

/**
 * The outcome once the ledger is merged: a refund state from the succeeded total. A chargeback
 * stays one; an outcome before capture (a query's `approved`) stands when nothing was refunded;
 * a refund claimed while the ledger holds none still implies the capture (the order is paid).
 */
function derivedOutcome(fact: PaymentFact, total: number, captured: number): PaymentFact['outcome'] {
  if (fact.outcome === 'chargeback') return fact.outcome;
  if (total > 0) return total >= captured ? 'refunded' : 'partially_refunded';
  return fact.outcome === 'partially_refunded' || fact.outcome === 'refunded' ? 'approved' : fact.outcome;
}

/**
 * The gateway's complete list as reports to record. On an order whose ledger holds a total from
 * before the ledger (an `import` row) that total already counts the refunds the gateway lists:
 * only references the ledger holds are kept, and a listed total that differs is for staff.
 */
function listedOf(rows: readonly Refund[], listed: readonly RefundReport[] | undefined, order: Order, reasons: string[]): RefundReport[] {
  if (listed === undefined) return [];
  if (!rows.some((r) => r.source === 'import' && r.status === 'succeeded')) return [...listed];
  const held = new Set(rows.map((r) => r.referenceId).filter((ref) => ref !== null));
  // A staff refund sent since the upgrade whose answer was lost has no reference yet: a listed
  // refund the ledger does not hold settles it when the amounts agree (as upsertsOf pairs them).
  // Only while the gateway lists more than the ledger holds: a listed refund the carried-over
  // total already counts must never settle a staff refund the gateway did not make.
  const gateway = listed.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + r.amount, 0);
  let unheld = gateway - refundedTotal(rows);
  const open = rows.filter((r) => r.status === 'pending' && r.referenceId === null).map((r) => r.amount);
  // Two listed refunds the ledger does not hold with one amount: either may be the one the old
  // total counts, so neither settles a staff refund (its answer, or query sync later, does).
  const unheldOf = (amount: number): number => listed.filter((l) => l.status === 'succeeded' && l.amount === amount && !(l.referenceId != null && held.has(l.referenceId))).length;
  const kept = listed.filter((r) => {
    if (r.referenceId != null && held.has(r.referenceId)) return true;
    const match = r.status === 'succeeded' && r.amount <= unheld && unheldOf(r.amount) === 1 ? open.indexOf(r.amount) : -1;
    if (match < 0) return false;
    open.splice(match, 1);
    unheld -= r.amount;
    return true;
  });
  const settling = kept.filter((r) => r.status === 'succeeded' && !(r.referenceId != null && held.has(r.referenceId))).reduce((sum, r) => sum + r.amount, 0);
  if (gateway !== refundedTotal(rows) + settling) {
    reasons.push(`The gateway lists ${gateway} ${order.currency} of refunds, the refund ledger (with its total from before the ledger) holds ${refundedTotal(rows) + settling}: check the refunds in the gateway portal.`);
  }
  return kept;
}

/**
 * The claim's own refunds to record. On an order whose ledger holds a total from before the ledger
 * (an `import` row), a reference it does not hold may be one that total already counts. It is
 * recorded only while the gateway's complete list adds up to more than the ledger holds, by at
 * least its amount, and never when a staff refund of the same amount is pending without a
 * reference: the report may be that refund's or an old one, and pairing it with the wrong one
 * counts money twice, so the staff answer (or the sweeper's refund round) settles that row.
 * Without a list it is not recorded, and flagged unless such a staff refund explains it. The
 * kit's own rows (reports with an id) and held references settle as usual.
 */
function ownOf(rows: readonly Refund[], fact: PaymentFact, order: Order, reasons: string[]): RefundReport[] {
  const own = fact.refunds ?? [];
  if (!rows.some((r) => r.source === 'import' && r.status === 'succeeded')) return own;
  const listed = fact.listedRefunds ?? [];
  let room = listed.filter((r) => r.status === 'succeeded').reduce((sum, r) => sum + r.amount, 0) - refundedTotal(rows);
  const pendingAmounts = new Set(rows.filter((r) => r.status === 'pending' && r.referenceId === null).map((r) => r.amount));
  const kept = own.filter((r) => {
    if (r.id !== undefined || (r.referenceId != null && rows.some((row) => row.referenceId === r.referenceId))) return true;
    if (pendingAmounts.has(r.amount) || fact.listedRefunds === undefined || r.status !== 'succeeded' || r.amount > room) return false;
    room -= r.amount;
    return true;
  });
  // Without a list, a dropped report no pending staff refund explains is for staff.
  if (fact.listedRefunds === undefined && own.some((r) => !kept.includes(r) && !pendingAmounts.has(r.amount))) {
    reasons.push(`A refund was reported that the refunded total from before the refund ledger may already count: not recorded. Run query sync (it compares the gateway's refunds with that total) or check the refunds in the gateway portal.`);
  }
  return kept;
}

export function ledgerStep(order: Order, rows: readonly Refund[], fact: PaymentFact, now: Date): LedgerStep {
  const reasons: string[] = [];
  const sameCurrency = (list: readonly RefundReport[]): RefundReport[] => {
    const kept = list.filter((r) => (r.currency ?? order.currency) === order.currency);
    if (kept.length < list.length && !reasons.some((r) => r.startsWith('A refund in another currency'))) {
      reasons.push(`A refund in another currency than the order's ${order.currency} was reported: not recorded. Check the refunds in the gateway portal.`);
    }
    return kept;
  };
  let planned = 0;
  // Ids of rows a merge would insert matter only to tell the rows apart while planning.
  const ctx = { orderId: order.id, now, newId: () => `planned-${String(++planned)}` };
  // The claim's own refunds first, then the gateway's list, matched against the rows the first left.
  const own = upsertsOf(order, rows, fact, sameCurrency(ownOf(rows, fact, order, reasons)));
  const first = mergeRefunds(rows, own, ctx).rows;
  const upserts = [...own, ...upsertsOf(order, first, fact, sameCurrency(listedOf(first, fact.listedRefunds, order, reasons)))];
  const merged = mergeRefunds(rows, upserts, ctx);
  // A settled refund never changes; one reported again with another amount is for staff.
  for (const u of upserts) {
    const held = u.referenceId == null ? undefined : rows.find((r) => r.referenceId === u.referenceId && r.status === 'succeeded');
    if (held !== undefined && u.status === 'succeeded' && held.amount !== u.amount) {
      reasons.push(`Refund ${held.referenceId ?? ''} is reported as ${String(u.amount)} ${order.currency}, the refund ledger holds ${String(held.amount)}: check the refund in the gateway portal.`);
    }
  }
  const captured = capturedOf(order);
  const total = refundedTotal(merged.rows);
  const reserved = merged.changes.some((c) => c.kind === 'insert' && c.row.status === 'pending');
  if (reserved && total + refundSum(merged.rows, 'pending') > captured) {
    return { fact, upserts: [], changed: false, grew: false, reasons: [], refused: `more than the ${refundableOf(order, rows)} ${order.currency} that remains refundable` };
  }

  // A total without references is compared, never written: the ledger alone moves the amount.
  const referenced = fact.refunds !== undefined || fact.listedRefunds !== undefined;
  const claimed = fact.refundedAmount ?? (!referenced && fact.outcome === 'refunded' ? captured : undefined);
  if (claimed !== undefined && claimed !== total) {
    reasons.push(
      `The ${fact.source === 'notify' ? 'notification' : fact.source} reports ${claimed} ${order.currency} refunded, the refund ledger holds ${total}: ` +
        'not applied. Run query sync (it records the gateway\'s refunds by reference) or check the refunds in the gateway portal.',
    );
  } else if (claimed === undefined && !referenced && fact.outcome === 'partially_refunded' && total === 0) {
    reasons.push('A partial refund was reported without its reference and the refund ledger holds none: run query sync or check the refunds in the gateway portal.');
  }
  // The gateway's complete list says everything captured was refunded, yet the ledger holds less
  // than the kit recorded as captured: the capture was partial (made outside the kit) or a refund is missing.
  if (fact.listedRefunds !== undefined && fact.outcome === 'refunded' && total > 0 && total < captured) {
    reasons.push(`The gateway reports this order refunded in full with ${total} ${order.currency} of refunds, the kit recorded ${captured} captured: the capture may have been partial. Check the order in the gateway portal.`);
  }
  if (total > captured) {
    reasons.push(`Refunds reported for this order add up to more than the ${captured} ${order.currency} captured: check the refunds in the gateway portal.`);
  }
  const derived: PaymentFact = { ...fact, outcome: derivedOutcome(fact, total, captured), refundedAmount: total === 0 ? undefined : Math.min(total, captured), refunds: undefined, listedRefunds: undefined };
  return { fact: derived, upserts, changed: merged.changes.length > 0, grew: total > refundedTotal(rows), reasons };
}
