/**
 * The reconcile engine's view of the gateway, built on the client's query operation (which
 * splits the order numbers into requests within the gateway's list limits).
 */
import type { GatewayClient } from '../gateway/client.js';
import type { GatewayOrderFact, GatewayPort, GatewaySubscriptionTransaction, RefundReport } from '../orders/engine-types.js';
import { OUTCOME_STATE, rankOf } from '../orders/state-machine.js';
import { gatewayOrderRef } from '../orders/subscriptions.js';

type QueryClient = Pick<GatewayClient, 'queries'>;

// A chargeback too: refunds made before it are still the order's, and notified in any order.
const REFUND_OUTCOMES: ReadonlySet<string> = new Set(['partially_refunded', 'refunded', 'chargeback']);

/**
 * The gateway's successful refunds per order number, by reference, from the refund search (the
 * query does not list refunds). Every order asked about has an entry, empty when it has none.
 * Rejects when the search fails: "none" and "unknown" must not be confused.
 */
async function searchRefunds(client: QueryClient, orderNos: string[], transactionOf: ReadonlyMap<string, string | null> = new Map()): Promise<Map<string, RefundReport[]>> {
  const found = new Map<string, RefundReport[]>(orderNos.map((no) => [no, []]));
  if (orderNos.length === 0) return found;
  // A deduction's refunds are listed under its first payment's number: asked for by that number
  // and told apart by transaction id, as are the first payment's own from its deductions'.
  const refs = orderNos.map((no) => {
    const ref = gatewayOrderRef(no);
    return { no, wire: ref.orderNo, transactionId: ref.transactionId ?? transactionOf.get(no) ?? null };
  });
  const { refunds } = await client.queries.refunds({ refundOrders: [...new Set(refs.map((r) => r.wire))] });
  const seen = new Set<string>();
  for (const r of refunds) {
    // Only observed success counts; a reference in another status is not money that moved (yet).
    if (r.orderNo === null || r.refundStatus !== '1' || r.refundAmount === null || r.refundAmount <= 0 || r.refundReferenceId === null) continue;
    const ref = refs.find((x) => x.wire === r.orderNo && (x.transactionId === null || (r.transactionId ?? null) === null || r.transactionId === x.transactionId));
    const list = ref === undefined ? undefined : found.get(ref.no);
    if (ref === undefined || list === undefined || seen.has(`${ref.no}|${r.refundReferenceId}`)) continue;
    seen.add(`${ref.no}|${r.refundReferenceId}`);
    list.push({
      referenceId: r.refundReferenceId,
      reference: r.refundReference,
      amount: r.refundAmount,
      ...(r.currency === null ? {} : { currency: r.currency }),
      status: 'succeeded',
    });
  }
  return found;
}

function rankOfOutcome(fact: GatewayOrderFact): number {
  if (fact.outcome === 'unknown') return -1;
  return rankOf({ state: OUTCOME_STATE[fact.outcome], data: {} });
}

export function createGatewayPort(client: QueryClient): GatewayPort {
  return {
    async queryOrders(orderNos) {
      const facts = new Map<string, GatewayOrderFact>();
      const asked = new Set<string>();
      /** Deductions asked about, by the gateway's order number, then transaction id: their own order number. */
      const deductions = new Map<string, Map<string, string>>();
      for (const no of orderNos) {
        const ref = gatewayOrderRef(no);
        if (ref.transactionId === null) asked.add(no);
        else deductions.set(ref.orderNo, (deductions.get(ref.orderNo) ?? new Map<string, string>()).set(ref.transactionId, no));
      }
      /** When each fact's attempt was made (`transaction_date`), to break ties between attempts. */
      const madeAt = new Map<string, number>();
      /** The first subscription transaction seen per order number: later ones under its recurring id are deductions. */
      const subscriptionOf = new Map<string, { recurringId: string; transactionId: string | null }>();
      if (asked.size > 0 || deductions.size > 0) {
        const result = await client.queries.transactions({ orders: [...new Set([...asked, ...deductions.keys()])] });
        for (const q of result.orders) {
          const deduction = q.transactionId === null ? undefined : deductions.get(q.orderNo)?.get(q.transactionId);
          if (deduction !== undefined) {
            facts.set(deduction, { orderNo: deduction, transactionId: q.transactionId, outcome: q.outcome, amount: q.amount, currency: q.currency });
          }
          if (!asked.has(q.orderNo)) continue;
          const recurringId = q.subscription?.recurringId ?? null;
          if (recurringId !== null) {
            const first = subscriptionOf.get(q.orderNo);
            // A deduction shares the order number but is a payment of its own (a child order).
            if (first !== undefined && first.recurringId === recurringId && first.transactionId !== q.transactionId) continue;
            if (first === undefined) subscriptionOf.set(q.orderNo, { recurringId, transactionId: q.transactionId });
          }
          const fact: GatewayOrderFact = {
            orderNo: q.orderNo,
            transactionId: q.transactionId === '' ? null : q.transactionId,
            outcome: q.outcome,
            amount: q.amount,
            currency: q.currency,
          };
          const sub = q.subscription;
          if (recurringId !== null && sub !== null) fact.subscription = { recurringId, contractName: sub.contractName, period: sub.recurringDeductionPeriod };
          // Several attempts under one order number: the most advanced one tells the truth, and of
          // two as advanced (a declined attempt, then an authorisation voided), the later one.
          const seen = facts.get(q.orderNo);
          const at = q.transactionDate?.getTime() ?? Number.NEGATIVE_INFINITY;
          const rank = seen === undefined ? 0 : rankOfOutcome(fact) - rankOfOutcome(seen);
          if (seen === undefined || rank > 0 || (rank === 0 && at >= (madeAt.get(q.orderNo) ?? Number.NEGATIVE_INFINITY))) {
            facts.set(q.orderNo, fact);
            madeAt.set(q.orderNo, at);
          }
        }
      }
      // Refunded orders carry their refunds by reference, for the ledger. When the search fails
      // the whole answer does: a refunded or charged-back answer without its refunds would move the
      // order past refunds nobody records (a charged-back order is not asked about again) or flag
      // a refund as unreferenced. "Unknown" is not "none": the caller asks again later.
      const refunded = [...facts.values()].filter((f) => REFUND_OUTCOMES.has(f.outcome));
      const transactionOf = new Map(refunded.map((f) => [f.orderNo, f.transactionId]));
      const lists = await searchRefunds(client, refunded.map((f) => f.orderNo), transactionOf);
      for (const [orderNo, list] of lists) {
        const fact = facts.get(orderNo);
        if (fact !== undefined) fact.refunds = list;
      }
      return facts;
    },
    searchRefunds: (orderNos) => searchRefunds(client, orderNos),
    async querySubscriptions(orderNos) {
      const found = new Map<string, GatewaySubscriptionTransaction[]>();
      const asked = new Set(orderNos);
      if (asked.size > 0) {
        const result = await client.queries.transactions({ orders: [...asked] });
        for (const q of result.orders) {
          const sub = q.subscription;
          if (!asked.has(q.orderNo) || sub === null || sub.recurringId === null || q.transactionId === null || q.transactionId === '') continue;
          const list = found.get(q.orderNo) ?? [];
          list.push({
            transactionId: q.transactionId, outcome: q.outcome, amount: q.amount, currency: q.currency, recurringId: sub.recurringId,
            recurringStatus: sub.recurringStatus, contractName: sub.contractName, period: sub.recurringDeductionPeriod, time: sub.recurringDeductionTime,
          });
          found.set(q.orderNo, list);
        }
      }
      return found;
    },
  };
}
