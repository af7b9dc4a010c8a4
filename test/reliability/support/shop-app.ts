/**
 * The shop around the kit, shared by the in-process harness and the shop process: a route that
 * creates the order server-side (as a shop's cart would) and answers its pay URL, and hooks that
 * report every call.
 */
import express, { Router } from 'express';
import { z } from 'zod';
import { isKitError } from '../../../server/errors.js';
import type { CheckoutKit } from '../../../server/kit.js';
import type { OrderHooks } from '../../../server/orders/hooks.js';

export const MERCHANT_ID = '701001';
export const ACCOUNT_ID = '701001010';

export interface HookCall {
  hook: string;
  orderNo: string;
  from: string | null;
  to: string | null;
  pid: number;
  /** The outbox entry's id: the same on every delivery of one call. */
  eventId: string | null;
}

const HOOK_NAMES = [
  'onTransition', 'onPaid', 'onAuthorized', 'onFailed', 'onCancelled', 'onExpired', 'onRefunded',
  'onChargeback', 'onInReview', 'onRequiresAction', 'onAttention',
] as const;

export function recordingHooks(record: (call: HookCall) => void): OrderHooks {
  const hooks: OrderHooks & Record<string, unknown> = {};
  for (const hook of HOOK_NAMES) {
    hooks[hook] = (order: { orderNo: string }, info?: unknown, attention?: { eventId?: string }) => {
      const t = typeof info === 'object' && info !== null ? (info as { from?: string; to?: string; eventId?: string }) : {};
      record({ hook, orderNo: order.orderNo, from: t.from ?? null, to: t.to ?? null, pid: process.pid, eventId: t.eventId ?? attention?.eventId ?? null });
    };
  }
  return hooks;
}

const orderSchema = z.strictObject({
  orderNo: z.string().min(1).max(50),
  amount: z.int().positive(),
  currency: z.string().length(3).default('USD'),
});

/** POST /shop/orders {orderNo, amount, currency?} → {orderId, orderNo, payUrl}. */
export function shopRoutes(kit: CheckoutKit): Router {
  const router = Router();
  router.post('/shop/orders', express.json({ limit: '4kb' }), async (req, res) => {
    const parsed = orderSchema.safeParse(req.body);
    if (!parsed.success) {
      res.status(400).json({ error: parsed.error.issues[0]?.path.join('.') ?? 'body' });
      return;
    }
    const { orderNo, amount, currency } = parsed.data;
    try {
      const { order, payUrl } = await kit.createPayment({
        orderNo,
        amount,
        currency,
        items: [{ name: 'Tea pot', sku: 'TP-1', unitPrice: amount, quantity: 1 }],
        shopper: { id: 'shopper-1', email: 'shopper@example.test' },
        billing: { country: 'NL', city: 'Utrecht', address: 'Oudegracht 1', postalCode: '3511AA' },
      });
      res.json({ orderId: order.id, orderNo: order.orderNo, payUrl });
    } catch (err) {
      res.status(isKitError(err) ? 409 : 500).json({ error: isKitError(err) ? err.code : 'failed' });
    }
  });
  return router;
}
