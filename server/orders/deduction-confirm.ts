/**
 * Confirming a deduction's notification with the gateway. The query cannot be asked by the
 * deduction's own order number (the gateway knows only the first payment's), but its reply
 * lists every transaction under that number with its `transaction_id`: a deduction is
 * confirmed by (order_no, transaction_id), and what the gateway says is what gets recorded.
 */
import { answerIsBehind, CONFIRMABLE_OUTCOMES } from './engine-facts.js';
import type { GatewayPort } from './engine-types.js';
import type { DeductionReport } from './subscriptions.js';

export interface ConfirmedDeduction {
  /** What to record: the gateway's answer in place of the claim; null when there is none. */
  report: DeductionReport | null;
  /** Why the claim is not confirmed (yet): the caller asks the gateway to send it again. */
  unconfirmed?: string;
}

/** Rejects only when the query fails ("unknown" is not "not listed"). */
export async function confirmDeduction(gateway: GatewayPort, claim: DeductionReport): Promise<ConfirmedDeduction> {
  if (!CONFIRMABLE_OUTCOMES.has(claim.outcome) || gateway.querySubscriptions === undefined) return { report: claim };
  const orderNo = claim.parent.orderNo;
  const listed = (await gateway.querySubscriptions([orderNo])).get(orderNo) ?? [];
  const answer = listed.find((t) => t.transactionId === claim.transactionId && t.recurringId === claim.recurringId);
  if (answer === undefined) return { report: null, unconfirmed: 'the gateway does not list this deduction under its order number (yet)' };
  const report: DeductionReport = {
    ...claim, outcome: answer.outcome, amount: answer.amount, currency: answer.currency, data: { ...claim.data, confirmedBy: 'query' },
  };
  if (!answerIsBehind(claim.outcome, answer.outcome)) return { report };
  // Recorded for what the gateway says, without the claim's dedupe key: the resend, once the
  // gateway has caught up, is then recorded too.
  const { dedupeKey: _claimed, ...behind } = report;
  return { report: behind, unconfirmed: `the gateway does not confirm ${claim.outcome} yet (it says ${answer.outcome})` };
}
