/**
 * The reconcile engine's view of the gateway, built on the client's query operation. Order
 * numbers are sent in chunks the gateway accepts: at most 100 per request and at most 1000
 * characters in the comma-separated `orders` field.
 */
import type { GatewayClient } from '../gateway/client.js';
import type { GatewayOrderFact, GatewayPort } from '../orders/engine-types.js';
import { OUTCOME_STATE, rankOf } from '../orders/state-machine.js';

export const QUERY_MAX_ORDERS = 100;
export const QUERY_MAX_CHARS = 1000;

type QueryClient = Pick<GatewayClient, 'queries'>;

const REFUND_OUTCOMES: ReadonlySet<string> = new Set(['partially_refunded', 'refunded']);

/**
 * The query does not say how much was refunded; the refund search does. Cumulative successful
 * refunds per order number, or an empty map when the search fails (the amount then stays unknown).
 */
async function refundedAmounts(client: QueryClient, orderNos: string[]): Promise<Map<string, number>> {
  const sums = new Map<string, number>();
  if (orderNos.length === 0) return sums;
  try {
    const { refunds } = await client.queries.refunds({ refundOrders: orderNos });
    for (const r of refunds) {
      if (r.orderNo === null || r.refundStatus !== '1' || r.refundAmount === null) continue;
      sums.set(r.orderNo, (sums.get(r.orderNo) ?? 0) + r.refundAmount);
    }
  } catch {
    sums.clear();
  }
  return sums;
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
      // One chunk after the other: the query operation is rate-limited by IP at the gateway.
      for (const chunk of chunkOrderNos(orderNos)) {
        const result = await client.queries.transactions({ orders: chunk });
        for (const q of result.orders) {
          if (!chunk.includes(q.orderNo)) continue;
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
      const refunded = await refundedAmounts(client, [...facts.values()].filter((f) => REFUND_OUTCOMES.has(f.outcome)).map((f) => f.orderNo));
      for (const [orderNo, amount] of refunded) {
        const fact = facts.get(orderNo);
        if (fact !== undefined && REFUND_OUTCOMES.has(fact.outcome)) fact.refundedAmount = amount;
      }
      return facts;
    },
  };
}
