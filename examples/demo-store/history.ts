/**
 * "Your orders": a signed cookie naming this browser's shopper id and the ids of the orders it
 * created (newest first). The order pages show only orders listed here, or reached through the
 * kit's signed result link.
 */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { SignedCookies } from './cookies.js';

export const HISTORY_COOKIE = 'demo_orders';
export const MAX_ORDERS = 25;
const HISTORY_MAX_AGE_MS = 90 * 24 * 60 * 60 * 1000;

const historySchema = z.strictObject({
  shopper: z.string().regex(/^shopper-[a-f0-9]{12}$/),
  orders: z.array(z.uuid()).max(MAX_ORDERS),
});
export type History = z.infer<typeof historySchema>;

export function readHistory(cookies: SignedCookies, req: Request): History {
  return cookies.read(req, HISTORY_COOKIE, historySchema) ?? { shopper: `shopper-${randomUUID().replace(/-/g, '').slice(0, 12)}`, orders: [] };
}

/** Adds the order to `current` (as read earlier in this request, so a new shopper keeps one id). */
export function rememberOrder(cookies: SignedCookies, req: Request, res: Response, current: History, orderId: string): History {
  const next: History = { shopper: current.shopper, orders: [orderId, ...current.orders.filter((id) => id !== orderId)].slice(0, MAX_ORDERS) };
  cookies.write(req, res, HISTORY_COOKIE, next, { maxAgeMs: HISTORY_MAX_AGE_MS });
  return next;
}

export function ownsOrder(cookies: SignedCookies, req: Request, orderId: string): boolean {
  return readHistory(cookies, req).orders.includes(orderId);
}
