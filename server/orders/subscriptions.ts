/**
 * Subscription deductions: each one the gateway charges is a child payment of the order that
 * started the subscription, an order of its own (`parentId`), reconciled by the same engine
 * with the same dedupe key and outbox guarantees as any payment. A deduction's order is
 * created in `created` (the sweeper never claims that state: a deduction is not queried by
 * its own number) and moved by the engine straight to paid, declined or failed, which owes
 * `onRecurringCharge` once. The notify route and the sweeper both record through here; the
 * order number derived from the deduction's transaction id makes them meet on one order.
 */
import { randomUUID } from 'node:crypto';
import { isKitError } from '../errors.js';
import type { PaymentOutcome } from '../gateway/codes.js';
import type { ApplyResult, GatewayPaymentSubscription, ReconcileEngine } from './engine-types.js';
import type { OrderStore } from './store.js';
import type { FactSource, Order } from './types.js';

export interface DeductionReport {
  /** The order that started the subscription. */
  parent: Order;
  /** The deduction's own gateway transaction id. */
  transactionId: string;
  outcome: PaymentOutcome;
  /** Minor units; the parent's amount when the report has none. */
  amount: number | null;
  currency: string | null;
  recurringId: string;
  contractName?: string | null;
  /** `recurring_deduction_period` as reported. */
  period?: string | null;
  /** `recurring_deduction_time` as reported (either date format). */
  time?: string | null;
  maskedCard?: string | null;
  source: FactSource;
  /** The notification's dedupe key (notify); the sweeper's answer has none. */
  dedupeKey?: string;
  data?: Record<string, unknown>;
}

/** The kit's order number of a deduction: unique, and the same whichever road reports it first. */
export const deductionOrderNo = (parentOrderNo: string, transactionId: string): string => `${parentOrderNo}~${transactionId}`;

/**
 * The gateway's own names of an order: a deduction's are its first payment's order number and its
 * transaction id (the gateway never heard of `<order_no>~<transaction_id>`; a shop's order number
 * cannot hold `~`); any other order's are its number and no particular transaction.
 */
export function gatewayOrderRef(orderNo: string): { orderNo: string; transactionId: string | null } {
  const at = orderNo.lastIndexOf('~');
  return at <= 0 ? { orderNo, transactionId: null } : { orderNo: orderNo.slice(0, at), transactionId: orderNo.slice(at + 1) };
}

/** The order data keys `subscriptionData` writes. */
const SUBSCRIPTION_KEYS = ['recurringId', 'contractName', 'deductionPeriod'] as const;

/** `data` without the subscription details (a claim's, which only the gateway's answer may give). */
export function withoutSubscriptionData(data: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (data === undefined || !SUBSCRIPTION_KEYS.some((key) => key in data)) return data;
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(data)) if (!(SUBSCRIPTION_KEYS as readonly string[]).includes(key)) kept[key] = data[key];
  return Object.keys(kept).length === 0 ? undefined : kept;
}

/** The order details a first payment's subscription adds (`data.recurringId`, …); undefined without one. */
export function subscriptionData(subscription: GatewayPaymentSubscription | null | undefined): Record<string, unknown> | undefined {
  if (subscription == null || subscription.recurringId === '') return undefined;
  const data: Record<string, unknown> = { recurringId: subscription.recurringId };
  if (subscription.contractName != null && subscription.contractName !== '') data.contractName = subscription.contractName;
  if (subscription.period != null && subscription.period !== '') data.deductionPeriod = subscription.period;
  return data;
}

/** True when a payment report under `parent`'s order number is one of its subscription's deductions. */
export function isDeductionOf(parent: Order, transactionId: string | null, recurringId: string | null): boolean {
  if (recurringId === null || transactionId === null || parent.parentId !== undefined) return false;
  if (parent.transactionId === null || transactionId === parent.transactionId) return false;
  const known = parent.data.recurringId;
  return known === undefined || known === recurringId;
}

async function deductionOrder(store: OrderStore, report: DeductionReport): Promise<Order> {
  const orderNo = deductionOrderNo(report.parent.orderNo, report.transactionId);
  const existing = await store.getByOrderNo(orderNo);
  if (existing !== null) return existing;
  const data: Record<string, unknown> = { recurringId: report.recurringId, parentOrderNo: report.parent.orderNo };
  if (report.contractName != null) data.contractName = report.contractName;
  if (report.period != null) data.deductionPeriod = report.period;
  if (report.time != null) data.deductionTime = report.time;
  try {
    return await store.create({
      id: randomUUID(),
      orderNo,
      amount: report.amount ?? report.parent.amount,
      currency: report.currency ?? report.parent.currency,
      method: report.parent.method,
      parentId: report.parent.id,
      data,
    });
  } catch (error) {
    // Reported by two roads at once: the other created it.
    if (!isKitError(error) || error.code !== 'ERR_ORDER_EXISTS') throw error;
    const raced = await store.getByOrderNo(orderNo);
    if (raced === null) throw error;
    return raced;
  }
}

/** Records one deduction on its own order through the engine. Rejects only for store failures. */
export async function recordDeduction(deps: { store: OrderStore; engine: ReconcileEngine }, report: DeductionReport): Promise<ApplyResult> {
  const order = await deductionOrder(deps.store, report);
  // A refunded deduction: its refunds are recorded by reference, which the listing does not give
  // but the gateway's query of the deduction (its refund search) does.
  if (report.outcome === 'partially_refunded' || report.outcome === 'refunded') {
    return deps.engine.confirm(order.id, report.source, report.source === 'sweeper' ? 'sweeper' : 'gateway');
  }
  return deps.engine.apply({
    orderId: order.id,
    transactionId: report.transactionId,
    source: report.source,
    outcome: report.outcome,
    ...(report.amount === null ? {} : { amount: report.amount }),
    ...(report.currency === null ? {} : { currency: report.currency }),
    ...(report.maskedCard == null ? {} : { maskedCard: report.maskedCard }),
    ...(report.dedupeKey === undefined ? {} : { dedupeKey: report.dedupeKey }),
    actor: report.source === 'sweeper' ? 'sweeper' : 'gateway',
    data: { ...report.data, recurringId: report.recurringId },
  }, { known: order });
}

/** What the admin shows of one subscription. */
export interface SubscriptionView {
  parent: Order;
  recurringId: string;
  contractName: string | null;
  /** active, cancelled or ended, as last learnt (cancel, the gateway's query). */
  status: string;
  deductions: Order[];
  /** `YYYY-MM-DD`, from the gateway's query, else one period after the last deduction; null when unknown. */
  nextDeduction: string | null;
}

const PERIOD_RE = /^(\d{1,4})\s*(day|week|month|year)s?$/i;

/**
 * `time` plus one `period` (`1 month`), as `YYYY-MM-DD`; null when either is unreadable. Months
 * and years keep `anchorDay` (default `time`'s day), clamped to the month's last day, as the
 * gateway's calendar does: 31 January → 28 (29) February → 31 March with anchor 31.
 */
export function afterPeriod(time: string, period: string, anchorDay?: number): string | null {
  const match = PERIOD_RE.exec(period.trim());
  const at = new Date(`${time.trim().slice(0, 10)}T00:00:00Z`);
  if (match === null || Number.isNaN(at.getTime())) return null;
  const n = Number(match[1]);
  const unit = (match[2] ?? 'day').toLowerCase();
  if (unit === 'month' || unit === 'year') {
    const day = anchorDay ?? at.getUTCDate();
    // Year, month and day 1 at once, so a long month's day cannot overflow into the next month.
    at.setUTCFullYear(at.getUTCFullYear(), at.getUTCMonth() + (unit === 'year' ? 12 : 1) * n, 1);
    const lastDay = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 0)).getUTCDate();
    at.setUTCDate(Math.min(day, lastDay));
  } else {
    at.setUTCDate(at.getUTCDate() + n * (unit === 'week' ? 7 : 1));
  }
  return at.toISOString().slice(0, 10);
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** The subscription's day of the month: clamping only shortens it, so the largest day a deduction fell on. */
function anchorDayOf(deductions: readonly Order[]): number | undefined {
  const days = deductions.flatMap((d) => {
    const day = /^\d{4}-\d{2}-(\d{2})/.exec(text(d.data.deductionTime) ?? '')?.[1];
    return day === undefined ? [] : [Number(day)];
  });
  return days.length === 0 ? undefined : Math.max(...days);
}

export async function subscriptionView(store: OrderStore, parent: Order): Promise<SubscriptionView> {
  const deductions = (await store.listChildren?.(parent.id)) ?? [];
  const status = text(parent.data.subscriptionStatus) ?? 'active';
  const last = deductions.at(-1);
  const lastTime = text(last?.data.deductionTime);
  const period = text(last?.data.deductionPeriod) ?? text(parent.data.deductionPeriod);
  const computed = lastTime !== null && period !== null ? afterPeriod(lastTime, period, anchorDayOf(deductions)) : null;
  return {
    parent,
    recurringId: text(parent.data.recurringId) ?? '',
    contractName: text(parent.data.contractName) ?? text(last?.data.contractName),
    status,
    deductions,
    nextDeduction: status === 'active' ? (text(parent.data.nextDeduction) ?? computed) : null,
  };
}
