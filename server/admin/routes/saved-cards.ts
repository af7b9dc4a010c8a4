/**
 * Saved cards of one shopper: staff look them up by shopper id (or from an order's page) and
 * remove one. Only brand, last four digits, expiry and dates are shown, never the token. A
 * removal is logged with the staff member and, when it was made from an order of that shopper,
 * recorded on the order as an admin_action event.
 */
import type { Router } from 'express';
import { z } from 'zod';
import { ValidationError } from '../../errors.js';
import { zodIssuesToFields } from '../../gateway/schemas/common.js';
import { savedCardExpired } from '../../orders/saved-cards.js';
import type { Order } from '../../orders/types.js';
import { first } from '../../http/form-body.js';
import { formatDateTime } from '../format.js';
import { formOf } from '../security.js';
import { sendView } from '../views.js';
import { redirect, staffOf } from './context.js';
import type { RouteContext } from './context.js';

const shopperId = z.string().trim().min(1, 'is required').max(64, 'must be at most 64 characters');
const removeSchema = z.object({
  shopper_id: shopperId,
  saved_card_id: z.string().trim().min(1, 'is required').max(64),
  order_id: z.string().trim().max(100),
});

const BRANDS: Readonly<Record<string, string>> = {
  visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover', jcb: 'JCB',
  diners: 'Diners Club', maestro: 'Maestro', unionpay: 'UnionPay', card: 'Card',
};

const shopperOf = (order: Order): string | null => {
  const shopper = order.data.shopper as { id?: unknown } | undefined;
  return typeof shopper?.id === 'string' ? shopper.id : null;
};

function query(path: string, params: Record<string, string>): string {
  const search = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== '')).toString();
  return search === '' ? path : `${path}?${search}`;
}

export function registerSavedCardRoutes(router: Router, ctx: RouteContext): void {
  const { kit } = ctx.options;
  const page = { title: 'Saved cards', section: 'saved-cards' };

  router.get('/saved-cards', async (req, res) => {
    const raw = typeof req.query.shopper === 'string' ? req.query.shopper : '';
    const orderId = typeof req.query.order === 'string' ? req.query.order.slice(0, 100) : '';
    const store = kit.store.savedCards;
    const base = { ...page, shopperId: raw.slice(0, 64), orderId, supported: store !== undefined, cards: [] as unknown[], problem: null as string | null };
    if (raw === '' || store === undefined) {
      sendView(res, ctx.views, 'saved-cards', base);
      return;
    }
    const parsed = shopperId.safeParse(raw);
    if (!parsed.success) {
      sendView(res, ctx.views, 'saved-cards', { ...base, problem: `Shopper id ${parsed.error.issues[0]?.message ?? 'is invalid'}` }, 400);
      return;
    }
    const order = orderId === '' ? null : await kit.store.get(orderId);
    const now = new Date();
    const cards = (await store.list(parsed.data)).map((c) => ({
      id: c.id,
      brand: BRANDS[c.brand] ?? c.brand,
      last4: c.last4,
      expiry: `${String(c.expiryMonth).padStart(2, '0')}/${String(c.expiryYear)}`,
      expired: savedCardExpired(c, now),
      createdAt: formatDateTime(c.createdAt),
    }));
    sendView(res, ctx.views, 'saved-cards', {
      ...base,
      shopperId: parsed.data,
      cards,
      order: order !== null && shopperOf(order) === parsed.data ? { id: order.id, orderNo: order.orderNo } : null,
    });
  });

  router.post('/saved-cards/remove', async (_req, res) => {
    const fields = formOf(res);
    const parsed = removeSchema.safeParse({
      shopper_id: first(fields, 'shopper_id'),
      saved_card_id: first(fields, 'saved_card_id'),
      order_id: first(fields, 'order_id'),
    });
    if (!parsed.success) throw new ValidationError(zodIssuesToFields(parsed.error));
    const { shopper_id: shopper, saved_card_id: savedCardId, order_id: orderId } = parsed.data;
    const back = query('/saved-cards', { shopper, order: orderId });
    const store = kit.store.savedCards;
    const staff = staffOf(res);
    const card = store === undefined ? null : await store.get(shopper, savedCardId);
    if (store === undefined || card === null || !(await store.remove(shopper, savedCardId))) {
      redirect(ctx, res, back, { kind: 'warning', text: 'That saved card was not found for this shopper; nothing was removed.' });
      return;
    }
    const label = `${BRANDS[card.brand] ?? card.brand} •••• ${card.last4}`;
    ctx.options.logger.info({ staff: staff.id, savedCardId, brand: card.brand, last4: card.last4 }, 'admin: saved card removed');
    const order = orderId === '' ? null : await kit.store.get(orderId);
    if (order !== null && shopperOf(order) === shopper) {
      await kit.engine.record(order.id, {
        type: 'admin_action',
        source: 'admin',
        actor: staff.id,
        data: { action: 'saved_card_remove', result: 'ok', savedCardId, brand: card.brand, last4: card.last4 },
      });
    }
    redirect(ctx, res, back, { kind: 'ok', text: `Saved card ${label} removed.` });
  });
}
