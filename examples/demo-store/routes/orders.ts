/**
 * The shopper's orders: the list of orders placed in this browser, each order's page with its
 * live state, and the page the kit sends the shopper to after paying (`/checkout/result/:token`,
 * answered here before the kit's router so the shopper stays in the shop's own layout).
 */
import { Router, type Request, type Response } from 'express';
import { refusalReason, type Order } from '../../../server/index.js';
import { ownsOrder, readHistory, rememberOrder } from '../history.js';
import { orderLocals, statusLabel } from '../order-view.js';
import { pageSecurity } from '../security.js';
import type { ShopContext } from './context.js';

export function orderRoutes(ctx: ShopContext): Router {
  const { kit, cookies, render } = ctx;
  const router = Router();
  const page = pageSecurity();

  const notFound = (res: Response): void => {
    render(res, 'message', { title: 'Not found', heading: 'We could not find that order', text: 'Orders are listed in the browser they were placed from.' }, 404);
  };

  const showOrder = async (res: Response, order: Order, selfUrl: string): Promise<void> => {
    const reason = await refusalReason(kit.store, order);
    render(res, 'order', { title: `Order ${order.orderNo}`, selfUrl, ...orderLocals(order, reason) });
  };

  router.get('/orders', page, async (req, res) => {
    const { orders: ids } = readHistory(cookies, req);
    const orders = (await Promise.all(ids.map((id) => kit.store.get(id)))).filter((o): o is Order => o !== null);
    render(res, 'orders', { title: 'Your orders', orders: orders.map((o) => ({ ...o, stateLabel: statusLabel(o.state) })) });
  });

  router.get('/orders/:id', page, async (req: Request<{ id: string }>, res) => {
    const order = ownsOrder(cookies, req, req.params.id) ? await kit.store.get(req.params.id) : null;
    if (order === null) {
      notFound(res);
      return;
    }
    await showOrder(res, order, `/orders/${order.id}`);
  });

  // The kit's signed result link proves the order; it is remembered in this browser's list too.
  router.get('/checkout/result/:token', page, async (req: Request<{ token: string }>, res) => {
    const claim = kit.context.tokens.verify(req.params.token, 'result');
    const order = claim === null ? null : await kit.store.get(claim.orderId);
    if (order === null) {
      notFound(res);
      return;
    }
    if (!ownsOrder(cookies, req, order.id)) rememberOrder(cookies, req, res, readHistory(cookies, req), order.id);
    await showOrder(res, order, req.originalUrl);
  });

  return router;
}
