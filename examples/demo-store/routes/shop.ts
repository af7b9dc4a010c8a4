/** Catalogue, product pages and the cart. */
import express, { Router, type Request } from 'express';
import { z } from 'zod';
import { CURRENCY, PRODUCTS, findProduct } from '../catalogue.js';
import { addToCart, MAX_QUANTITY, priceCart, readCart, saveCart, setQuantity } from '../cart.js';
import { pageSecurity } from '../security.js';
import type { ShopContext } from './context.js';

const lineSchema = z.object({
  sku: z.string().max(40),
  quantity: z.coerce.number().int().min(0).max(MAX_QUANTITY),
});

export function shopRoutes(ctx: ShopContext): Router {
  const { cookies, render } = ctx;
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 20 });
  const page = pageSecurity();

  router.get('/', page, (_req, res) => {
    render(res, 'home', { title: 'Tea things', products: PRODUCTS, currency: CURRENCY });
  });

  router.get('/products/:sku', page, (req: Request<{ sku: string }>, res) => {
    const product = findProduct(req.params.sku);
    if (product === undefined) {
      render(res, 'message', { title: 'Not found', heading: 'We could not find that product', text: 'It may have sold out.' }, 404);
      return;
    }
    render(res, 'product', { title: product.name, product, currency: CURRENCY, maxQuantity: MAX_QUANTITY });
  });

  router.get('/cart', page, (req, res) => {
    render(res, 'cart', { title: 'Your cart', cart: priceCart(readCart(cookies, req)) });
  });

  router.post('/cart/add', page, form, (req, res) => {
    const parsed = lineSchema.safeParse(req.body);
    if (!parsed.success || findProduct(parsed.data.sku) === undefined || parsed.data.quantity < 1) {
      render(res, 'message', { title: 'Not added', heading: 'That could not be added', text: 'Choose a quantity from 1 to 20.' }, 400);
      return;
    }
    saveCart(cookies, req, res, addToCart(readCart(cookies, req), parsed.data.sku, parsed.data.quantity));
    res.redirect(303, '/cart');
  });

  router.post('/cart/update', page, form, (req, res) => {
    const parsed = lineSchema.safeParse(req.body);
    if (!parsed.success) {
      render(res, 'message', { title: 'Not changed', heading: 'The cart was not changed', text: 'Choose a quantity from 0 to 20.' }, 400);
      return;
    }
    saveCart(cookies, req, res, setQuantity(readCart(cookies, req), parsed.data.sku, parsed.data.quantity));
    res.redirect(303, '/cart');
  });

  return router;
}
