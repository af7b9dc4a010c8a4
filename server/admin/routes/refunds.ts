/** Refund search: order numbers and/or refund references → the gateway's refund search → table. */
import type { Router } from 'express';
import { z } from 'zod';
import { isKitError } from '../../errors.js';
import type { RefundRecord } from '../../gateway/operations/queries.js';
import { formatDateTime, formatMoney } from '../format.js';
import { parseOrderList } from '../order-list.js';
import { sendView } from '../views.js';
import type { RouteContext } from './context.js';

const querySchema = z.object({
  orders: z.string().max(60_000).optional(),
  references: z.string().max(60_000).optional(),
});

/** At most this many identifiers per search (the client splits them into requests of 100). */
export const MAX_SEARCH_IDS = 500;

function row(r: RefundRecord): Record<string, string> {
  const money = (minor: number | null): string => (minor === null || r.currency === null ? '—' : formatMoney(minor, r.currency));
  return {
    orderNo: r.orderNo ?? '—',
    reference: r.refundReferenceId ?? r.refundReference ?? '—',
    amount: money(r.amount),
    refundAmount: money(r.refundAmount),
    status: [r.refundStatus === '1' ? 'refunded' : r.refundStatus === null ? null : `status ${r.refundStatus}`, r.outcome === 'unknown' ? null : r.outcome.replace(/_/g, ' ')]
      .filter((s) => s !== null).join(' · ') || '—',
    date: r.refundDate === null ? '—' : formatDateTime(r.refundDate),
    reason: r.refundReason ?? '',
  };
}

export function registerRefundRoutes(router: Router, ctx: RouteContext): void {
  router.get('/refunds', async (req, res) => {
    const parsed = querySchema.safeParse(req.query);
    const form = { orders: parsed.data?.orders ?? '', references: parsed.data?.references ?? '' };
    const locals = { title: 'Refund search', section: 'refunds', form };
    if (!parsed.success || (form.orders.trim() === '' && form.references.trim() === '')) {
      sendView(res, ctx.views, 'refunds', { ...locals, results: null, error: parsed.success ? null : 'The search could not be read.' }, parsed.success ? 200 : 400);
      return;
    }
    let orders: string[] = [];
    let references: string[] = [];
    try {
      if (form.orders.trim() !== '') orders = parseOrderList(form.orders, [], 'orders', MAX_SEARCH_IDS);
      if (form.references.trim() !== '') references = parseOrderList(form.references, [], 'references', MAX_SEARCH_IDS);
    } catch (err) {
      sendView(res, ctx.views, 'refunds', { ...locals, results: null, error: err instanceof Error ? err.message : 'invalid search' }, 400);
      return;
    }
    try {
      // Staff may hold either reference: the gateway's refund_reference or the refund_reference_id.
      const result = await ctx.options.kit.client.queries.refunds({
        ...(orders.length > 0 ? { refundOrders: orders } : {}),
        ...(references.length > 0 ? { refundReferences: references, merchantRefunds: references } : {}),
      });
      const seen = new Set<string>();
      const unique = result.refunds.filter((r) => {
        const key = `${r.transactionId ?? ''}|${r.refundReferenceId ?? ''}|${r.refundReference ?? ''}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      sendView(res, ctx.views, 'refunds', { ...locals, results: unique.map(row), error: null });
    } catch (err) {
      ctx.options.logger.warn({ err }, 'admin: refund search failed');
      const code = isKitError(err) ? err.code : 'ERR_UNKNOWN';
      sendView(res, ctx.views, 'refunds', { ...locals, results: null, error: `The refund search failed (${code}). Try again later.` }, 502);
    }
  });
}
