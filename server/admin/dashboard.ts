/**
 * The dashboard's figures, read from the order store: today's and the last 7 days' payments by
 * method and outcome, conversion (paid / started) per method, decline reasons ranked, the oldest
 * payments still pending, and (from the kit's metrics, since this process started) how the
 * gateway's notifications ended. UTC days, like the orders chart.
 */
import type { KitMetrics } from '../observability/metrics.js';
import { declineFamily } from '../observability/observer.js';
import type { OrderStore } from '../orders/store.js';
import type { Order, OrderState } from '../orders/types.js';
import { listOrdersSince } from './chart.js';
import { dashboardChart, WEEK_DAYS, type DashboardChart } from './dashboard-chart.js';

const DAY_MS = 86_400_000;

export const OUTCOMES = ['paid', 'declined', 'failed', 'cancelled', 'expired', 'open'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const METHODS = ['card', 'apm', 'hosted'] as const;

const OUTCOME_OF: Partial<Record<OrderState, Outcome>> = {
  paid: 'paid', authorized: 'paid', partially_refunded: 'paid', refunded: 'paid', chargeback: 'paid',
  declined: 'declined', failed: 'failed', cancelled: 'cancelled', expired: 'expired',
  pending: 'open', requires_action: 'open', in_review: 'open',
};

export interface MethodRow {
  method: string;
  /** Payments sent to the gateway (every order with a method past `created`). */
  started: number;
  outcomes: Record<Outcome, number>;
  /** paid / started, 0..1, or null when nothing started. */
  conversion: number | null;
}

export interface PeriodFigures {
  label: string;
  rows: MethodRow[];
  total: MethodRow;
}

export interface DeclineReason {
  family: string;
  code: string;
  text: string;
  count: number;
}

export interface DashboardModel {
  today: PeriodFigures;
  week: PeriodFigures;
  declines: DeclineReason[];
  oldestPending: Order[];
  /** Notification results since this process started; null without the kit's metrics. */
  notifications: { result: string; count: number }[] | null;
  chart: DashboardChart;
  partial: boolean;
  generatedAt: Date;
}

const emptyRow = (method: string): MethodRow => ({
  method, started: 0, outcomes: { paid: 0, declined: 0, failed: 0, cancelled: 0, expired: 0, open: 0 }, conversion: null,
});

export function periodFigures(label: string, orders: readonly Order[]): PeriodFigures {
  const rows = new Map<string, MethodRow>(METHODS.map((m) => [m, emptyRow(m)]));
  const total = emptyRow('all');
  for (const order of orders) {
    const outcome = OUTCOME_OF[order.state];
    if (order.method === null || outcome === undefined) continue;
    const row = rows.get(order.method) ?? emptyRow(order.method);
    rows.set(order.method, row);
    for (const r of [row, total]) {
      r.started += 1;
      r.outcomes[outcome] += 1;
    }
  }
  for (const r of [...rows.values(), total]) r.conversion = r.started === 0 ? null : r.outcomes.paid / r.started;
  return { label, rows: [...rows.values()], total };
}

export function declineReasons(orders: readonly Order[]): DeclineReason[] {
  const reasons = new Map<string, DeclineReason>();
  for (const order of orders) {
    if (order.state !== 'declined') continue;
    const raw = typeof order.data.resultCode === 'string' ? order.data.resultCode : '';
    const [code = '', text = ''] = raw.includes(':') ? raw.split(':', 2) : [raw, typeof order.data.resultText === 'string' ? order.data.resultText : ''];
    const key = code === '' ? '(none)' : code;
    const reason = reasons.get(key) ?? { family: declineFamily(code), code: key, text: text.slice(0, 80), count: 0 };
    reason.count += 1;
    reasons.set(key, reason);
  }
  return [...reasons.values()].sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
}

async function notificationResults(metrics: KitMetrics | undefined): Promise<DashboardModel['notifications']> {
  const metric = metrics?.registry.getSingleMetric('checkout_notifications_total');
  if (metric === undefined) return null;
  const values = (await metric.get()).values;
  return values
    .map((v) => ({ result: String(v.labels.result ?? ''), count: v.value }))
    .sort((a, b) => b.count - a.count || a.result.localeCompare(b.result));
}

export async function loadDashboard(store: OrderStore, metrics: KitMetrics | undefined, now: Date): Promise<DashboardModel> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const createdFrom = new Date(today - (WEEK_DAYS - 1) * DAY_MS);
  const { orders, partial } = await listOrdersSince(store, createdFrom);
  const [oldestPending, notifications] = await Promise.all([
    store.listDue({ states: ['pending', 'requires_action', 'in_review'], updatedBefore: new Date(now.getTime() + 1000), limit: 10 }),
    notificationResults(metrics),
  ]);
  return {
    today: periodFigures('Today', orders.filter((o) => o.createdAt.getTime() >= today)),
    week: periodFigures(`Last ${WEEK_DAYS} days`, orders),
    declines: declineReasons(orders).slice(0, 10),
    oldestPending,
    notifications,
    chart: dashboardChart(orders, now),
    partial,
    generatedAt: now,
  };
}
