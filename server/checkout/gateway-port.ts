/**
 * The reconcile engine's view of the gateway, built on the client's query operation. Order
 * numbers are sent in chunks the gateway accepts: at most 100 per request and at most 1000
 * characters in the comma-separated `orders` field.
 */
import type { GatewayClient } from '../gateway/client.js';
import type { GatewayOrderFact, GatewayPort, GatewaySubscriptionTransaction, RefundReport } from '../orders/engine-types.js';
import { OUTCOME_STATE, rankOf } from '../orders/state-machine.js';

export const QUERY_MAX_ORDERS = 100;
export const QUERY_MAX_CHARS = 1000;

type QueryClient = Pick<GatewayClient, 'queries'>;

const REFUND_OUTCOMES: ReadonlySet<string> = new Set(['partially_refunded', 'refunded']);

/**
 * The gateway's successful refunds per order number, by reference, from the refund search (the
 * query does not list refunds). Every order asked about has an entry, empty when it has none.
 * Rejects when the search fails: "none" and "unknown" must not be confused.
 */
async function searchRefunds(client: QueryClient, orderNos: string[]): Promise<Map<string, RefundReport[]>> {
  const found = new Map<string, RefundReport[]>(orderNos.map((no) => [no, []]));
  if (orderNos.length === 0) return found;
  const { refunds } = await client.queries.refunds({ refundOrders: orderNos });
  const seen = new Set<string>();
  for (const r of refunds) {
    // Only observed success counts; a reference in another status is not money that moved (yet).
    if (r.orderNo === null || r.refundStatus !== '1' || r.refundAmount === null || r.refundAmount <= 0 || r.refundReferenceId === null) continue;
    const list = found.get(r.orderNo);
    if (list === undefined || seen.has(`${r.orderNo}|${r.refundReferenceId}`)) continue;
    seen.add(`${r.orderNo}|${r.refundReferenceId}`);
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

/** Splits order numbers into chunks within both limits of the query operation. */
export function chunkOrderNos(orderNos: readonly string[]): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  let chars = 0;
  for (const orderNo of new Set(orderNos)) {
    const extra = current.length === 0 ? orderNo.length : orderNo.length + 1;
    if (current.length > 0 && (current.length >= QUERY_MAX_ORDERS || chars + extra > QUERY_MAX_CHARS)) {
      chunks.push(current);
      current = [];
      chars = 0;
    }
    current.push(orderNo);
    chars += current.length === 1 ? orderNo.length : orderNo.length + 1;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function rankOfOutcome(fact: GatewayOrderFact): number {
  if (fact.outcome === 'unknown') return -1;
  return rankOf({ state: OUTCOME_STATE[fact.outcome], data: {} });
}

export function createGatewayPort(client: QueryClient): GatewayPort {
  return {
    async queryOrders(orderNos) {
      const facts = new Map<string, GatewayOrderFact>();
      /** The first subscription transaction seen per order number: later ones under its recurring id are deductions. */
      const subscriptionOf = new Map<string, { recurringId: string; transactionId: string | null }>();
      // One chunk after the other: the query operation is rate-limited by IP at the gateway.
      for (const chunk of chunkOrderNos(orderNos)) {
        const result = await client.queries.transactions({ orders: chunk });
        for (const q of result.orders) {
          if (!chunk.includes(q.orderNo)) continue;
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
          // Several attempts under one order number: the most advanced one tells the truth.
          const seen = facts.get(q.orderNo);
          if (seen === undefined || rankOfOutcome(fact) > rankOfOutcome(seen)) facts.set(q.orderNo, fact);
        }
      }
      // Refunded orders carry their refunds by reference, for the ledger; when the search fails
      // they carry none, and the ledger is left as it is.
      const refunded = [...facts.values()].filter((f) => REFUND_OUTCOMES.has(f.outcome)).map((f) => f.orderNo);
      const lists = await searchRefunds(client, refunded).catch(() => new Map<string, RefundReport[]>());
      for (const [orderNo, list] of lists) {
        const fact = facts.get(orderNo);
        if (fact !== undefined) fact.refunds = list;
      }
      return facts;
    },
    searchRefunds: (orderNos) => searchRefunds(client, orderNos),
    async querySubscriptions(orderNos) {
      const found = new Map<string, GatewaySubscriptionTransaction[]>();
      for (const chunk of chunkOrderNos(orderNos)) {
        const result = await client.queries.transactions({ orders: chunk });
        for (const q of result.orders) {
          const sub = q.subscription;
          if (!chunk.includes(q.orderNo) || sub === null || sub.recurringId === null || q.transactionId === null || q.transactionId === '') continue;
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
