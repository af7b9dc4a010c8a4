/**
 * Subscriptions: the list (each with its deductions, next deduction and status) and the cancel:
 * recurring_id (+ contract_name) → the gateway's cancelsubscription. The result is shown and,
 * when the order that started the subscription can be found (its `data.recurringId`, or the
 * order number staff give), recorded on it as an admin_action event; a cancel the gateway
 * accepted also marks the subscription cancelled on that order.
 */
import type { Router } from 'express';
import { z } from 'zod';
import { ValidationError, isKitError } from '../../errors.js';
import { zodIssuesToFields } from '../../gateway/schemas/common.js';
import type { OrderStore } from '../../orders/store.js';
import { subscriptionView } from '../../orders/subscriptions.js';
import type { Order } from '../../orders/types.js';
import { first } from '../../http/form-body.js';
import { isOrderNo } from '../order-list.js';
import { formOf } from '../security.js';
import { sendView } from '../views.js';
import { staffOf } from './context.js';
import type { RouteContext } from './context.js';

const formSchema = z.object({
  recurring_id: z.string().trim().min(1, 'is required').max(50).regex(/^[\x21-\x7e]+$/, 'must be printable characters without spaces'),
  contract_name: z.string().trim().max(200),
  order_no: z.string().trim().refine((v) => v === '' || isOrderNo(v), 'is not an order number'),
});

/** How many recent orders are scanned for the recurring id when no order number is given. */
const SCAN_LIMIT = 5000;
/** How many orders one page of the list looks at for first payments with a subscription (newest first). */
const LIST_SCAN = 500;

const listQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(10_000).optional(),
});

async function findOrder(store: OrderStore, recurringId: string, orderNo: string): Promise<Order | null> {
  if (orderNo !== '') {
    const order = await store.getByOrderNo(orderNo);
    if (order !== null && order.data.recurringId === recurringId) return order;
  }
  for (let offset = 0; offset < SCAN_LIMIT; offset += 500) {
    const page = await store.list({ limit: 500, offset });
    const found = page.find((o) => o.data.recurringId === recurringId);
    if (found !== undefined) return found;
    if (page.length < 500) break;
  }
  return null;
}

export function registerSubscriptionRoutes(router: Router, ctx: RouteContext): void {
  const { kit } = ctx.options;
  const page = { title: 'Cancel a subscription', section: 'subscriptions' };

  router.get('/subscriptions', async (req, res) => {
    const parsed = listQuerySchema.safeParse(req.query);
    if (!parsed.success) throw new ValidationError(zodIssuesToFields(parsed.error));
    const pageNo = parsed.data.page ?? 1;
    // One page per window of orders: older subscriptions are on later pages, however many orders there are.
    const window = await kit.store.list({ limit: LIST_SCAN + 1, offset: (pageNo - 1) * LIST_SCAN });
    const parents = window.slice(0, LIST_SCAN).filter((o) => o.parentId === undefined && typeof o.data.recurringId === 'string');
    const subscriptions = await Promise.all(parents.map(async (parent) => {
      const view = await subscriptionView(kit.store, parent);
      return {
        ...view,
        paidCount: view.deductions.filter((d) => d.state === 'paid' || d.state === 'partially_refunded' || d.state === 'refunded').length,
        failedCount: view.deductions.filter((d) => d.state === 'declined' || d.state === 'failed').length,
      };
    }));
    sendView(res, ctx.views, 'subscription-list', {
      title: 'Subscriptions', section: 'subscriptions', subscriptions, scanned: LIST_SCAN, page: pageNo, hasNext: window.length > LIST_SCAN, pagerQuery: '',
    });
  });

  router.get('/subscriptions/cancel', (_req, res) => {
    sendView(res, ctx.views, 'subscriptions', { ...page, form: { recurringId: '', contractName: '', orderNo: '' }, result: null });
  });

  router.post('/subscriptions/cancel', async (_req, res) => {
    const fields = formOf(res);
    const parsed = formSchema.safeParse({
      recurring_id: first(fields, 'recurring_id'),
      contract_name: first(fields, 'contract_name'),
      order_no: first(fields, 'order_no'),
    });
    if (!parsed.success) throw new ValidationError(zodIssuesToFields(parsed.error));
    const { recurring_id: recurringId, contract_name: contractName, order_no: orderNo } = parsed.data;
    const staff = staffOf(res);
    const form = { recurringId, contractName, orderNo };

    let result: { ok: boolean; status: string | null; message: string | null };
    let answered = true;
    try {
      const answer = await kit.client.subscriptions.cancel({ recurring_id: recurringId, ...(contractName !== '' ? { contract_name: contractName } : {}) });
      result = { ok: answer.ok, status: answer.status, message: answer.message };
    } catch (err) {
      ctx.options.logger.warn({ err, recurringId }, 'admin: subscription cancel failed');
      const code = isKitError(err) ? err.code : 'ERR_UNKNOWN';
      answered = false;
      result = { ok: false, status: null, message: `the request failed (${code}); if it may have reached the gateway, check before trying again` };
    }
    const order = await findOrder(kit.store, recurringId, orderNo);
    if (order !== null) {
      await kit.engine.record(order.id, {
        type: 'admin_action',
        source: 'admin',
        actor: staff.id,
        data: { action: 'subscription_cancel', recurringId, contractName: contractName || null, result: result.ok ? 'ok' : 'failed', status: result.status, message: result.message },
      });
      // Details only (no state, no hook): the list and the sweeper stop treating it as active.
      if (result.ok && order.data.subscriptionStatus !== 'cancelled') {
        const fresh = (await kit.store.get(order.id)) ?? order;
        await kit.store.transition(fresh.id, fresh.version, { data: { subscriptionStatus: 'cancelled' } }, {
          type: 'details', source: 'admin', actor: staff.id, data: { subscription: { subscriptionStatus: 'cancelled' } },
        });
      }
    }
    sendView(res, ctx.views, 'subscriptions', {
      ...page,
      form,
      result: { ...result, recurringId, order: order === null ? null : { id: order.id, orderNo: order.orderNo } },
    }, answered ? 200 : 502);
  });
}
