/** The orders list (with its chart), the order page and the order page's actions. */
import type { Router } from 'express';
import { z } from 'zod';
import { ValidationError } from '../../errors.js';
import { zodIssuesToFields } from '../../gateway/schemas/common.js';
import { capturableOf, releasedOf } from '../../orders/capture.js';
import { ORDER_STATES } from '../../orders/types.js';
import type { Refund } from '../../orders/refunds.js';
import type { Order, OrderEvent } from '../../orders/types.js';
import { first } from '../../http/form-body.js';
import { loadChart } from '../chart.js';
import { formatDateTime, formatMoney } from '../format.js';
import { ACTION_LABELS, ACTION_STATES, refundableOf } from '../gateway-actions.js';
import { eventSentence } from '../event-sentence.js';
import { ActionNotAllowedError, runOrderAction, syncOrder } from '../order-actions.js';
import { formOf } from '../security.js';
import { JOB_ACTIONS } from '../store.js';
import type { JobAction } from '../store.js';
import { toWireAmount } from '../../gateway/money.js';
import { pageContext, sendError, sendView } from '../views.js';
import { param, redirect, staffOf } from './context.js';
import type { RouteContext } from './context.js';
import type { Response } from 'express';

/** What staff read instead of the form's field names. */
export const FIELD_LABELS: Record<string, string> = {
  capture_amount: 'Capture amount',
  refund_amount: 'Refund amount',
  refund_reason: 'Reason',
  decision: 'Decision',
  id: 'Order',
};

/** A refused action, shown on the order page itself. */
export interface ActionProblem {
  heading: string;
  items: { label: string; field: string; message: string }[];
}

function problemOf(error: unknown): { status: number; problem: ActionProblem } | null {
  if (error instanceof ValidationError) {
    return {
      status: 400,
      problem: {
        heading: 'Nothing was sent: check the form',
        items: error.issues.map((i) => ({ field: i.field, label: FIELD_LABELS[i.field] ?? i.field.replace(/_/g, ' '), message: i.message.replace(/^not sent: /, '') })),
      },
    };
  }
  if (error instanceof ActionNotAllowedError) {
    return { status: 409, problem: { heading: 'This action is not possible now', items: [{ field: '', label: 'Action', message: `${error.message}. Nothing was sent.` }] } };
  }
  return null;
}

export const PAGE_SIZE = 50;
const DAY_MS = 86_400_000;

const listQuerySchema = z.object({
  state: z.union([z.enum(ORDER_STATES), z.literal('')]).optional(),
  from: z.union([z.iso.date(), z.literal('')]).optional(),
  to: z.union([z.iso.date(), z.literal('')]).optional(),
  attention: z.enum(['1', 'on', 'true']).optional(),
  page: z.coerce.number().int().min(1).max(100_000).optional(),
});

/** Events shown per page of an order's log: an order with thousands stays a small, quick page. */
export const EVENTS_PAGE = 50;

// An empty value (a form left blank) is the newest page.
const orderQuerySchema = z.object({ events_before: z.union([z.literal(''), z.coerce.number().int().min(2).max(Number.MAX_SAFE_INTEGER)]).optional() });

export const JOB_ACTION_OPTIONS = JOB_ACTIONS.map((value) => ({ value, label: ACTION_LABELS[value] }));

function eventDetails(event: OrderEvent): string {
  const text = Object.keys(event.data).length === 0 ? '' : JSON.stringify(event.data);
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}

function allowed(order: Order, refunds: readonly Refund[]): { capture: boolean; cancel: boolean; review: boolean; refund: boolean } {
  const ok = (action: JobAction): boolean => ACTION_STATES[action].includes(order.state) && order.transactionId !== null;
  return {
    capture: ok('capture'),
    cancel: ok('cancel'),
    review: ok('review_approve'),
    refund: ok('refund') && refundableOf(order, refunds) > 0,
  };
}

export function registerOrderRoutes(router: Router, ctx: RouteContext): void {
  const { kit } = ctx.options;

  router.get('/', async (req, res) => {
    const parsed = listQuerySchema.safeParse(req.query);
    if (!parsed.success) throw new ValidationError(zodIssuesToFields(parsed.error));
    const q = parsed.data;
    const page = q.page ?? 1;
    const attention = q.attention !== undefined;
    const createdFrom = q.from ? new Date(`${q.from}T00:00:00.000Z`) : undefined;
    const createdTo = q.to ? new Date(new Date(`${q.to}T00:00:00.000Z`).getTime() + DAY_MS - 1) : undefined;
    const [rows, chart] = await Promise.all([
      kit.store.list({
        ...(q.state ? { states: [q.state] } : {}),
        ...(createdFrom ? { createdFrom } : {}),
        ...(createdTo ? { createdTo } : {}),
        ...(attention ? { attention: true } : {}),
        limit: PAGE_SIZE + 1,
        offset: (page - 1) * PAGE_SIZE,
      }),
      loadChart(kit.store, new Date()),
    ]);
    const filters = { state: q.state ?? '', from: q.from ?? '', to: q.to ?? '', attention };
    const pagerQuery = new URLSearchParams({
      ...(filters.state ? { state: filters.state } : {}),
      ...(filters.from ? { from: filters.from } : {}),
      ...(filters.to ? { to: filters.to } : {}),
      ...(attention ? { attention: '1' } : {}),
    }).toString();
    sendView(res, ctx.views, 'orders', {
      title: 'Orders',
      section: 'orders',
      orders: rows.slice(0, PAGE_SIZE),
      hasNext: rows.length > PAGE_SIZE,
      page,
      pagerQuery: pagerQuery === '' ? '' : `${pagerQuery}&`,
      filters,
      states: ORDER_STATES,
      chart,
      jobActions: JOB_ACTION_OPTIONS,
    });
  });

  router.get('/orders/by-number/:orderNo', async (req, res) => {
    const order = await kit.store.getByOrderNo(param(req, 'orderNo'));
    if (order === null) {
      sendError(res, ctx.views, 404, 'Order not found', 'No order has this number.');
      return;
    }
    redirect(ctx, res, `/orders/${encodeURIComponent(order.id)}`);
  });

  async function renderOrder(res: Response, order: Order, status = 200, problem?: ActionProblem, typed?: Record<string, string>, eventsBefore?: number): Promise<void> {
    const page = { limit: EVENTS_PAGE, ...(eventsBefore !== undefined ? { beforeSeq: eventsBefore } : {}) };
    const [read, refunds] = await Promise.all([kit.store.listEvents(order.id, page), kit.store.listRefunds(order.id)]);
    // Sliced again: a store of the shop's own may return the whole log.
    const events = read.filter((e) => eventsBefore === undefined || e.seq < eventsBefore).slice(-EVENTS_PAGE);
    const here = `${pageContext(res).base}/orders/${encodeURIComponent(order.id)}`;
    const oldest = events[0]?.seq ?? 1;
    const refundable = refundableOf(order, refunds);
    const capturable = capturableOf(order);
    sendView(res, ctx.views, 'order', {
      title: `Order ${order.orderNo}`,
      section: 'orders',
      order,
      here,
      actions: allowed(order, refunds),
      refundable,
      capturable,
      released: releasedOf(order),
      captureDefault: typed !== undefined && typed.capture_amount !== '' ? typed.capture_amount : (capturable > 0 ? toWireAmount(capturable, order.currency) : ''),
      refunds: refunds.map((r) => ({
        reference: r.referenceId ?? r.reference ?? '—',
        amount: formatMoney(r.amount, r.currency),
        status: r.status,
        source: r.source,
        createdAt: formatDateTime(r.createdAt),
        updatedAt: formatDateTime(r.updatedAt),
      })),
      refundDefault: typed?.refund_amount ?? (refundable > 0 ? toWireAmount(refundable, order.currency) : ''),
      refundReason: typed?.refund_reason ?? '',
      problem,
      events: events.map((e) => ({ ...e, sentence: eventSentence(e, order.currency), details: eventDetails(e) })).reverse(),
      olderEvents: oldest > 1 ? `${here}?events_before=${String(oldest)}#events-title` : null,
      newestEvents: eventsBefore !== undefined ? `${here}#events-title` : null,
    }, status);
  }

  router.get('/orders/:id', async (req, res) => {
    const query = orderQuerySchema.safeParse(req.query);
    if (!query.success) throw new ValidationError(zodIssuesToFields(query.error));
    const order = await kit.store.get(param(req, 'id'));
    if (order === null) {
      sendError(res, ctx.views, 404, 'Order not found', 'No order has this id.');
      return;
    }
    const before = query.data.events_before;
    await renderOrder(res, order, 200, undefined, undefined, before === '' ? undefined : before);
  });

  const act = (path: string, action: (fields: Record<string, string[]>) => JobAction | 'sync'): void => {
    router.post(`/orders/:id/${path}`, async (req, res) => {
      const order = await kit.store.get(param(req, 'id'));
      if (order === null) {
        sendError(res, ctx.views, 404, 'Order not found', 'No order has this id; nothing was sent.');
        return;
      }
      const fields = formOf(res);
      const typed = {
        capture_amount: first(fields, 'capture_amount').slice(0, 30),
        refund_amount: first(fields, 'refund_amount').slice(0, 30),
        refund_reason: first(fields, 'refund_reason').slice(0, 50),
      };
      try {
        const chosen = action(fields);
        const staff = staffOf(res);
        const flash = chosen === 'sync'
          ? await syncOrder(kit, staff, order)
          : await runOrderAction(kit, staff, order, chosen, { amountText: typed.refund_amount, reason: typed.refund_reason, captureAmountText: typed.capture_amount });
        redirect(ctx, res, `/orders/${encodeURIComponent(order.id)}`, flash);
      } catch (error) {
        // A refused action stays on the order page, with what was typed and a readable reason.
        const refused = problemOf(error);
        if (refused === null) throw error;
        await renderOrder(res, (await kit.store.get(order.id)) ?? order, refused.status, refused.problem, typed);
      }
    });
  };
  act('capture', () => 'capture');
  act('cancel', () => 'cancel');
  act('refund', () => 'refund');
  act('sync', () => 'sync');
  act('review', (fields) => {
    const decision = first(fields, 'decision');
    if (decision !== 'approve' && decision !== 'reject') {
      throw new ValidationError([{ field: 'decision', message: 'must be approve or reject' }]);
    }
    return decision === 'approve' ? 'review_approve' : 'review_reject';
  });
}
