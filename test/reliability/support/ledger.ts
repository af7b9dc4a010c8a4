/**
 * The sandbox's ledger is the truth: what each order should look like in the shop, and whether
 * any payment was charged, captured, refunded or paid out twice.
 */
import { outcomeOfPaymentStatus, PAYMENT_STATUS } from '../../../server/gateway/codes.js';
import { OPEN_STATES, OUTCOME_STATE } from '../../../server/orders/state-machine.js';
import type { Order, OrderState } from '../../../server/orders/types.js';
import type { SandboxLedger, SandboxTransaction } from '../../../server/sandbox/index.js';
import type { GatewayCall } from './shop.js';

/**
 * The ledger of a sandbox running inside a shop process (its /_sandbox/state): its transactions
 * and refunds, and a transaction by order number.
 */
export async function gatewayLedger(gatewayUrl: string): Promise<SandboxLedger> {
  const res = await fetch(`${gatewayUrl}/_sandbox/state`);
  const state = (await res.json()) as { transactions: SandboxTransaction[]; refunds: [] };
  const byOrderNo = new Map(state.transactions.map((t) => [t.orderNo, t]));
  return { transactions: () => state.transactions, refunds: () => state.refunds, transaction: (orderNo: string) => byOrderNo.get(orderNo) } as unknown as SandboxLedger;
}

/** The state the shop's order must end in, or 'open' when the gateway is still waiting. */
export function expectedState(tx: SandboxTransaction | undefined, order: Pick<Order, 'state' | 'data'>): OrderState | 'open' {
  if (tx === undefined) {
    // Never reached the gateway: stays created; sent but unknown to it: expired by the sweeper.
    return order.data.submittedAt === undefined ? 'created' : 'expired';
  }
  const outcome = outcomeOfPaymentStatus(tx.paymentStatus);
  if (outcome === 'unknown' || outcome === 'pending' || outcome === 'requires_action') return 'open';
  return OUTCOME_STATE[outcome];
}

/** Orders whose state or amounts differ from the ledger. */
export function ledgerMismatches(orders: readonly Order[], ledger: SandboxLedger): string[] {
  const byOrderNo = new Map<string, SandboxTransaction>();
  for (const tx of ledger.transactions()) byOrderNo.set(tx.orderNo, tx);
  const problems: string[] = [];
  for (const order of orders) {
    const tx = byOrderNo.get(order.orderNo);
    const expected = expectedState(tx, order);
    const stateOk = expected === 'open' ? OPEN_STATES.includes(order.state) : order.state === expected;
    if (!stateOk) {
      problems.push(`${order.orderNo}: shop ${order.state}, ledger ${expected} (payment_status ${tx?.paymentStatus ?? 'none'})`);
      continue;
    }
    if (tx !== undefined && (order.state === 'partially_refunded' || order.state === 'refunded') && order.refundedAmount !== tx.refundedAmount) {
      problems.push(`${order.orderNo}: shop refunded ${String(order.refundedAmount)}, ledger ${String(tx.refundedAmount)}`);
    }
    if (tx !== undefined && order.transactionId !== null && order.transactionId !== tx.transactionId) {
      problems.push(`${order.orderNo}: shop transaction ${order.transactionId}, ledger ${tx.transactionId}`);
    }
  }
  return problems;
}

const MONEY_STATUSES = new Set<string>([
  PAYMENT_STATUS.authorized, PAYMENT_STATUS.completed, PAYMENT_STATUS.partiallyRefunded, PAYMENT_STATUS.refunded, PAYMENT_STATUS.chargeback,
]);

/** Shop states that account for money the gateway took (held, captured, or since refunded). */
const MONEY_STATES = new Set<OrderState>(['authorized', 'paid', 'partially_refunded', 'refunded', 'chargeback']);

/**
 * Payments the gateway took money for (authorised or captured) whose shop order is missing or
 * not in a state that accounts for it: the one loss that matters. An order a shopper left before
 * paying (`created`, or a challenge never finished) holds no money and is not one of these.
 */
export function unpaidMoney(orders: readonly Order[], ledger: SandboxLedger, orderNos: ReadonlySet<string>): string[] {
  const byOrderNo = new Map(orders.map((o) => [o.orderNo, o]));
  const problems: string[] = [];
  for (const tx of ledger.transactions()) {
    if (!orderNos.has(tx.orderNo) || !MONEY_STATUSES.has(tx.paymentStatus)) continue;
    const order = byOrderNo.get(tx.orderNo);
    if (order === undefined) problems.push(`${tx.orderNo}: gateway ${tx.paymentStatus}, no order in the shop`);
    else if (!MONEY_STATES.has(order.state)) problems.push(`${tx.orderNo}: gateway ${tx.paymentStatus}, shop ${order.state}`);
  }
  return problems;
}

/** Payments charged or captured twice, and refunds beyond what was captured, per the ledger. */
export function ledgerDoubleCharges(ledger: SandboxLedger, orderNos?: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const charged = new Map<string, number>();
  const refunds = new Map<string, number>();
  for (const r of ledger.refunds()) refunds.set(r.transactionId, (refunds.get(r.transactionId) ?? 0) + r.refundAmount);
  for (const tx of ledger.transactions()) {
    if (orderNos !== undefined && !orderNos.has(tx.orderNo)) continue;
    if (MONEY_STATUSES.has(tx.paymentStatus)) charged.set(tx.orderNo, (charged.get(tx.orderNo) ?? 0) + 1);
    const captures = tx.history.filter((h, i) => h.paymentStatus === PAYMENT_STATUS.completed && tx.history[i - 1]?.paymentStatus !== PAYMENT_STATUS.completed);
    if (captures.length > 1) problems.push(`${tx.orderNo}: captured ${String(captures.length)} times`);
    const refunded = refunds.get(tx.transactionId) ?? 0;
    if (refunded > tx.capturedAmount && tx.capturedAmount > 0) problems.push(`${tx.orderNo}: refunded ${String(refunded)} of ${String(tx.capturedAmount)}`);
  }
  for (const [orderNo, count] of charged) if (count > 1) problems.push(`${orderNo}: ${String(count)} payments took money`);
  return problems;
}

/** Money-moving requests the kit sent more than once for the same order or payout. */
export function resentRequests(calls: readonly GatewayCall[], operations: readonly string[] = ['authorise', 'capture', 'cancel', 'refund', 'payout', 'review']): string[] {
  const seen = new Map<string, number>();
  for (const call of calls) {
    if (!operations.includes(call.operation)) continue;
    for (const key of new Set(call.keys)) seen.set(`${call.operation} ${key}`, (seen.get(`${call.operation} ${key}`) ?? 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([key, n]) => `${key} sent ${String(n)} times`);
}

/** Hook calls that do not match the stored transitions one for one. */
export function hookMismatches(
  orders: readonly { order: Order; transitions: { from: string | null; to: string | null }[] }[],
  calls: readonly { hook: string; orderNo: string; from: string | null; to: string | null }[],
): string[] {
  const byOrder = new Map<string, { hook: string; from: string | null; to: string | null }[]>();
  for (const c of calls) byOrder.set(c.orderNo, [...(byOrder.get(c.orderNo) ?? []), c]);
  const problems: string[] = [];
  for (const { order, transitions } of orders) {
    const hooks = (byOrder.get(order.orderNo) ?? []).filter((c) => c.hook === 'onTransition');
    const stored = transitions.map((t) => `${t.from ?? ''}>${t.to ?? ''}`).sort();
    const called = hooks.map((t) => `${t.from ?? ''}>${t.to ?? ''}`).sort();
    if (stored.join(',') !== called.join(',')) problems.push(`${order.orderNo}: transitions [${stored.join(', ')}], onTransition [${called.join(', ')}]`);
    const specific = (byOrder.get(order.orderNo) ?? []).filter((c) => c.hook !== 'onTransition' && c.hook !== 'onAttention');
    const expectedSpecific = transitions.filter((t) => t.to !== 'pending').length;
    if (specific.length !== expectedSpecific) problems.push(`${order.orderNo}: ${String(expectedSpecific)} state hooks expected, ${String(specific.length)} called`);
  }
  return problems;
}
