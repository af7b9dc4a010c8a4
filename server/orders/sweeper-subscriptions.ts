/**
 * The sweeper's subscription round: a page of the live subscriptions (first payments whose
 * subscription is active, or was cancelled since the last complete round) is asked about by query
 * (one call per 100), and what `subscription_result` says is reconciled:
 * every deduction listed under the order number that the store does not hold yet is recorded
 * as a child order (a notification that was lost), and the subscription's status and next
 * deduction are written on the first payment's order for staff.
 */
import type { Logger } from '../logging.js';
import { redact } from '../logging.js';
import type { GatewayPort, ReconcileEngine } from './engine-types.js';
import type { OrderStore } from './store.js';
import { recordDeduction } from './subscriptions.js';
import type { Order } from './types.js';

export interface SubscriptionSweepReport {
  /** First payments asked about. */
  checked: number;
  /** Deductions recorded (or moved) by this round. */
  recorded: number;
  /** Subscriptions whose status or next deduction changed. */
  updated: number;
}

export interface SubscriptionSweepOptions {
  engine: ReconcileEngine;
  store: OrderStore;
  gateway: GatewayPort;
  logger: Logger;
  /** Subscriptions asked about per round (or, for a store without `listSubscriptions`, newest orders looked at). */
  scanLimit: number;
  /** Where the last round's page ended; kept by the sweeper between rounds. */
  cursor: SubscriptionCursor;
}

/** The last subscription (order id) a round asked about; undefined starts again from the first. */
export interface SubscriptionCursor {
  after: string | undefined;
}

/** A subscription starts with an approved first payment, captured or not, and outlives its refund. */
const ACTIVE_PARENT_STATES = ['authorized', 'paid', 'partially_refunded', 'refunded'] as const;

/**
 * Set on a cancelled subscription's first payment once a round has recorded every deduction the
 * gateway lists: a deduction charged before the cancel whose notification was lost is only found
 * by asking once more after it, and nothing can be charged after it.
 */
export const CANCEL_SETTLED = 'subscriptionCancelSettled';

const isActiveParent = (o: Order): boolean => {
  if (o.parentId !== undefined || typeof o.data.recurringId !== 'string' || o.transactionId === null) return false;
  const status = o.data.subscriptionStatus ?? 'active';
  return status === 'active' || (status === 'cancelled' && o.data[CANCEL_SETTLED] !== true);
};

const inActiveState = (o: Order): boolean => (ACTIVE_PARENT_STATES as readonly string[]).includes(o.state);

/**
 * The next page of subscriptions, round after round through all of them however old, so a lost
 * deduction of a subscription started long ago is still found. A store without
 * `listSubscriptions` offers only its newest orders, where an old subscription is never seen.
 */
async function nextParents(o: SubscriptionSweepOptions): Promise<Order[]> {
  const { store, cursor } = o;
  if (store.listSubscriptions === undefined) {
    return (await store.list({ states: ACTIVE_PARENT_STATES, limit: o.scanLimit })).filter(isActiveParent);
  }
  const page = await store.listSubscriptions({ ...(cursor.after === undefined ? {} : { after: cursor.after }), limit: o.scanLimit });
  // A short page ends the list: the next round starts again from the first subscription.
  cursor.after = page.length < o.scanLimit ? undefined : page.at(-1)?.id;
  return page.filter((p) => inActiveState(p) && isActiveParent(p));
}

/** Null when there is nothing to do (no port support, no child listing, no active subscription). */
export async function sweepSubscriptions(o: SubscriptionSweepOptions): Promise<SubscriptionSweepReport | null> {
  const { store, gateway, engine, logger } = o;
  if (gateway.querySubscriptions === undefined || store.listChildren === undefined) return null;
  const parents = await nextParents(o);
  if (parents.length === 0) return null;
  const report: SubscriptionSweepReport = { checked: parents.length, recorded: 0, updated: 0 };
  const answers = await gateway.querySubscriptions(parents.map((p) => p.orderNo));
  for (const parent of parents) {
    const listed = (answers.get(parent.orderNo) ?? []).filter((t) => t.recurringId === parent.data.recurringId);
    try {
      // Every listed deduction now has its order (a busy one is asked about again next round).
      let complete = true;
      for (const t of listed) {
        if (t.transactionId === parent.transactionId) continue;
        const result = await recordDeduction({ store, engine }, {
          parent, transactionId: t.transactionId, outcome: t.outcome, amount: t.amount, currency: t.currency, recurringId: t.recurringId,
          contractName: t.contractName, period: t.period, time: t.time, source: 'sweeper', data: { confirmedBy: 'query' },
        });
        if (result.status === 'applied') report.recorded++;
        if (result.status === 'busy' || result.status === 'not_found') complete = false;
      }
      const own = listed.find((t) => t.transactionId === parent.transactionId);
      if (own === undefined || !complete) continue;
      // Staff's cancel is kept as such; the round only notes that nothing is left to record.
      const data: Record<string, unknown> = parent.data.subscriptionStatus === 'cancelled'
        ? { [CANCEL_SETTLED]: true }
        : { subscriptionStatus: own.recurringStatus === '1' ? 'active' : 'ended' };
      if (own.time !== null && parent.data.subscriptionStatus !== 'cancelled') data.nextDeduction = own.time;
      if (own.contractName !== null) data.contractName = own.contractName;
      if (own.period !== null) data.deductionPeriod = own.period;
      const changed = Object.entries(data).filter(([k, v]) => parent.data[k] !== v);
      if (changed.length === 0) continue;
      // Details only: no state moves and no hook is owed, so the compare-and-set alone is enough.
      const stored = await store.transition(parent.id, parent.version, { data }, {
        type: 'details', source: 'sweeper', actor: 'sweeper', data: { subscription: Object.fromEntries(changed) },
      });
      if (stored.ok) report.updated++;
    } catch (error) {
      logger.warn({ err: redact(error), orderId: parent.id }, 'Sweeper could not reconcile a subscription');
    }
  }
  return report;
}
