/**
 * The shop's pug views (views/demo/), compiled once, and the one render function every page
 * goes through: it adds the CSP nonce, the cart count and the shop's name to the locals.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Response } from 'express';
import pug from 'pug';
import { formatMoney } from '../../server/index.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DEMO_VIEWS_DIR = join(ROOT, 'views', 'demo');
export const PUBLIC_DIR = join(ROOT, 'public');

export const SHOP_NAME = 'Kettle & Leaf';

const VIEW_NAMES = ['home', 'product', 'cart', 'checkout', 'pay', 'order', 'orders', 'message'] as const;
export type ViewName = (typeof VIEW_NAMES)[number];

export type Render = (res: Response, view: ViewName, locals: Record<string, unknown>, status?: number) => void;

/** `res.locals.cartCount` is set for every request by the shop's cart middleware. */
export function createRenderer(): Render {
  const compiled = new Map<ViewName, pug.compileTemplate>();
  for (const name of VIEW_NAMES) {
    compiled.set(name, pug.compileFile(join(DEMO_VIEWS_DIR, `${name}.pug`), { basedir: DEMO_VIEWS_DIR }));
  }
  return (res, view, locals, status = 200) => {
    const template = compiled.get(view);
    if (template === undefined) throw new Error(`no demo view ${view}`);
    const html = template({
      shopName: SHOP_NAME,
      cspNonce: res.locals.cspNonce as string,
      cartCount: typeof res.locals.cartCount === 'number' ? res.locals.cartCount : 0,
      money: formatMoney,
      ...locals,
    });
    res.status(status).set('Cache-Control', 'no-store').type('html').send(html);
  };
}
