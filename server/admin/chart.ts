/**
 * The orders page's chart: payments per day and acceptance rate per day over the last 14 days
 * (UTC days), drawn as inline SVG by the view. Only geometry is computed here; the view writes
 * SVG attributes and classes, never style attributes, so it works under the strict CSP.
 *
 * A "payment" is an order created that day that reached the gateway (any state but `created`).
 * Accepted: authorized, paid, partially_refunded, refunded or chargeback. The rate is accepted
 * over decided payments (open ones — pending, requires_action, in_review — are left out); a day
 * with nothing decided has no rate point.
 */
import type { OrderStore } from '../orders/store.js';
import type { Order, OrderState } from '../orders/types.js';

export const CHART_DAYS = 14;
const ACCEPTED: ReadonlySet<OrderState> = new Set(['authorized', 'paid', 'partially_refunded', 'refunded', 'chargeback']);
const OPEN: ReadonlySet<OrderState> = new Set(['created', 'pending', 'requires_action', 'in_review']);
const DAY_MS = 86_400_000;
/** Enough for a busy small shop; beyond it the chart and the dashboard say they are partial. */
const MAX_ORDERS = 20_000;
const PAGE = 500;

export interface ChartDay {
  day: string;
  payments: number;
  accepted: number;
  decided: number;
  /** 0..1, or null when nothing was decided that day. */
  rate: number | null;
}

export interface ChartBar { x: number; y: number; width: number; height: number; day: ChartDay; label: string; labelX: number }
export interface ChartDot { cx: number; cy: number; day: ChartDay; percent: number }

export interface ChartModel {
  width: number;
  height: number;
  plot: { left: number; right: number; top: number; bottom: number };
  days: ChartDay[];
  bars: ChartBar[];
  dots: ChartDot[];
  /** `x,y x,y …` for the rate polyline (empty when no day has a rate). */
  ratePoints: string;
  maxPayments: number;
  totalPayments: number;
  /** True when more orders existed than the chart reads. */
  partial: boolean;
}

function startOfUtcDay(date: Date): number {
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}

/** Buckets orders into the 14 UTC days ending with `now`'s day. */
export function chartDays(orders: readonly Pick<Order, 'state' | 'createdAt'>[], now: Date): ChartDay[] {
  const first = startOfUtcDay(now) - (CHART_DAYS - 1) * DAY_MS;
  const days: ChartDay[] = Array.from({ length: CHART_DAYS }, (_, i) => ({
    day: new Date(first + i * DAY_MS).toISOString().slice(0, 10),
    payments: 0,
    accepted: 0,
    decided: 0,
    rate: null,
  }));
  for (const order of orders) {
    if (order.state === 'created') continue;
    const index = Math.floor((order.createdAt.getTime() - first) / DAY_MS);
    const day = days[index];
    if (day === undefined) continue;
    day.payments += 1;
    if (ACCEPTED.has(order.state)) day.accepted += 1;
    if (!OPEN.has(order.state)) day.decided += 1;
  }
  for (const day of days) day.rate = day.decided === 0 ? null : day.accepted / day.decided;
  return days;
}

export function chartModel(days: ChartDay[], partial = false): ChartModel {
  const width = 700;
  const height = 220;
  const plot = { left: 36, right: width - 44, top: 12, bottom: height - 28 };
  const plotH = plot.bottom - plot.top;
  const slot = (plot.right - plot.left) / Math.max(days.length, 1);
  const maxPayments = Math.max(1, ...days.map((d) => d.payments));
  const round = (n: number): number => Math.round(n * 10) / 10;
  const bars = days.map((day, i) => {
    const h = (day.payments / maxPayments) * plotH;
    return {
      x: round(plot.left + i * slot + slot * 0.2),
      y: round(plot.bottom - h),
      width: round(slot * 0.6),
      height: round(h),
      day,
      label: day.day.slice(5),
      labelX: round(plot.left + i * slot + slot / 2),
    };
  });
  const dots = days.flatMap((day, i) =>
    day.rate === null
      ? []
      : [{ cx: round(plot.left + i * slot + slot / 2), cy: round(plot.bottom - day.rate * plotH), day, percent: Math.round(day.rate * 100) }],
  );
  return {
    width,
    height,
    plot,
    days,
    bars,
    dots,
    ratePoints: dots.map((d) => `${d.cx},${d.cy}`).join(' '),
    maxPayments,
    totalPayments: days.reduce((sum, d) => sum + d.payments, 0),
    partial,
  };
}

/**
 * Orders created since `createdFrom`, newest first, read page by page up to a cap; `partial`
 * says the cap was reached. The chart and the dashboard share it.
 */
export async function listOrdersSince(store: OrderStore, createdFrom: Date): Promise<{ orders: Order[]; partial: boolean }> {
  const orders: Order[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await store.list({ createdFrom, limit: PAGE, offset });
    orders.push(...page);
    if (page.length < PAGE) return { orders, partial: false };
    if (orders.length >= MAX_ORDERS) return { orders, partial: true };
  }
}

/** Reads the last 14 days of orders from the store (newest first, paged) and builds the model. */
export async function loadChart(store: OrderStore, now: Date): Promise<ChartModel> {
  const { orders, partial } = await listOrdersSince(store, new Date(startOfUtcDay(now) - (CHART_DAYS - 1) * DAY_MS));
  return chartModel(chartDays(orders, now), partial);
}
