/**
 * The dashboard's chart: payments per UTC day over the last 7 days, each bar stacked by outcome
 * (paid, declined, failed, cancelled or expired, still open). Geometry only; the view writes SVG
 * attributes and classes (no style attributes, for the strict CSP). The viewBox is narrow
 * (360 wide) so its text stays readable when the SVG is scaled to a 390 px phone screen.
 */
import type { Order, OrderState } from '../orders/types.js';

/** Days the dashboard covers, today included. */
export const WEEK_DAYS = 7;
const DAY_MS = 86_400_000;
export const SEGMENTS = ['paid', 'declined', 'failed', 'ended', 'open'] as const;
export type Segment = (typeof SEGMENTS)[number];
export const SEGMENT_LABELS: Record<Segment, string> = {
  paid: 'Paid', declined: 'Declined', failed: 'Failed', ended: 'Cancelled or expired', open: 'Still open',
};

const SEGMENT_OF: Partial<Record<OrderState, Segment>> = {
  paid: 'paid', authorized: 'paid', partially_refunded: 'paid', refunded: 'paid', chargeback: 'paid',
  declined: 'declined', failed: 'failed', cancelled: 'ended', expired: 'ended',
  pending: 'open', requires_action: 'open', in_review: 'open',
};

export interface StackPart { segment: Segment; y: number; height: number; count: number }
export interface StackBar { day: string; label: string; x: number; width: number; labelX: number; total: number; parts: StackPart[] }

export interface DashboardChart {
  width: number;
  height: number;
  plot: { left: number; right: number; top: number; bottom: number };
  bars: StackBar[];
  max: number;
  total: number;
}

export function dashboardChart(orders: readonly Pick<Order, 'state' | 'method' | 'createdAt'>[], now: Date): DashboardChart {
  const width = 360;
  const height = 190;
  const plot = { left: 30, right: width - 8, top: 10, bottom: height - 24 };
  const first = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (WEEK_DAYS - 1) * DAY_MS;
  const counts = Array.from({ length: WEEK_DAYS }, () => ({ paid: 0, declined: 0, failed: 0, ended: 0, open: 0 }));
  for (const order of orders) {
    const segment = SEGMENT_OF[order.state];
    const day = counts[Math.floor((order.createdAt.getTime() - first) / DAY_MS)];
    if (segment === undefined || order.method === null || day === undefined) continue;
    day[segment] += 1;
  }
  const totals = counts.map((c) => SEGMENTS.reduce((sum, s) => sum + c[s], 0));
  const max = Math.max(1, ...totals);
  const slot = (plot.right - plot.left) / WEEK_DAYS;
  const scale = (plot.bottom - plot.top) / max;
  const round = (n: number): number => Math.round(n * 10) / 10;
  const bars = counts.map((c, i) => {
    const day = new Date(first + i * DAY_MS).toISOString().slice(0, 10);
    let top = plot.bottom;
    const parts = SEGMENTS.filter((s) => c[s] > 0).map((segment) => {
      const h = c[segment] * scale;
      top -= h;
      return { segment, y: round(top), height: round(h), count: c[segment] };
    });
    return {
      day, label: day.slice(5), x: round(plot.left + i * slot + slot * 0.15), width: round(slot * 0.7),
      labelX: round(plot.left + i * slot + slot / 2), total: totals[i] ?? 0, parts,
    };
  });
  return { width, height, plot, bars, max, total: totals.reduce((a, b) => a + b, 0) };
}
