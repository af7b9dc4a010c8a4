/**
 * The cart lives in a signed cookie: a few SKUs and quantities. Prices always come from the
 * catalogue on the server, never from the cookie or the browser.
 */
import type { Request, Response } from 'express';
import { z } from 'zod';
import { CURRENCY, findProduct, type Product } from './catalogue.js';
import type { SignedCookies } from './cookies.js';

export const CART_COOKIE = 'demo_cart';
export const MAX_QUANTITY = 20;
const CART_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

const cartSchema = z.array(z.tuple([z.string().max(40), z.int().min(1).max(MAX_QUANTITY)])).max(20);
export type CartLines = z.infer<typeof cartSchema>;

export interface CartLine {
  product: Product;
  quantity: number;
  total: number;
}

export interface Cart {
  lines: CartLine[];
  count: number;
  total: number;
  currency: string;
}

export function readCart(cookies: SignedCookies, req: Request): CartLines {
  return cookies.read(req, CART_COOKIE, cartSchema) ?? [];
}

export function saveCart(cookies: SignedCookies, req: Request, res: Response, lines: CartLines): void {
  if (lines.length === 0) cookies.clear(res, CART_COOKIE);
  else cookies.write(req, res, CART_COOKIE, lines, { maxAgeMs: CART_MAX_AGE_MS });
}

/** Sets a line's quantity (0 removes it); unknown SKUs are dropped. */
export function setQuantity(lines: CartLines, sku: string, quantity: number): CartLines {
  const rest = lines.filter(([s]) => s !== sku);
  if (quantity <= 0 || findProduct(sku) === undefined) return rest;
  const at = lines.findIndex(([s]) => s === sku);
  const next: CartLines = [...rest];
  next.splice(at < 0 ? next.length : at, 0, [sku, Math.min(quantity, MAX_QUANTITY)]);
  return next;
}

export function addToCart(lines: CartLines, sku: string, quantity: number): CartLines {
  const current = lines.find(([s]) => s === sku)?.[1] ?? 0;
  return setQuantity(lines, sku, current + quantity);
}

/** The cart priced from the catalogue. */
export function priceCart(lines: CartLines): Cart {
  const priced: CartLine[] = [];
  for (const [sku, quantity] of lines) {
    const product = findProduct(sku);
    if (product !== undefined) priced.push({ product, quantity, total: product.price * quantity });
  }
  return {
    lines: priced,
    count: priced.reduce((n, l) => n + l.quantity, 0),
    total: priced.reduce((n, l) => n + l.total, 0),
    currency: CURRENCY,
  };
}
