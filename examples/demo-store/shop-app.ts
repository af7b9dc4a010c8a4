/**
 * The shop as one Express app: the shop's pages, the kit's router and the admin (with the kit's
 * staff sign-in at /admin/login), in the order they must be mounted.
 */
import { join } from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import { noSniff, type AdminRouter } from '../../server/index.js';
import { priceCart, readCart } from './cart.js';
import { checkoutRoutes } from './routes/checkout.js';
import { ADMIN_PATH, type ShopContext } from './routes/context.js';
import { orderRoutes } from './routes/orders.js';
import { shopRoutes } from './routes/shop.js';
import { pageSecurity, sameOriginPosts } from './security.js';
import { PUBLIC_DIR } from './views.js';

export function createShopApp(ctx: ShopContext, admin: AdminRouter, app: express.Express = express()): express.Express {
  const { kit, cookies, render, logger } = ctx;
  app.disable('x-powered-by');
  app.use(noSniff);
  app.get('/assets/demo.css', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').sendFile(join(PUBLIC_DIR, 'demo.css'));
  });
  app.use((req, res, next) => {
    res.locals.cartCount = priceCart(readCart(cookies, req)).count;
    next();
  });
  // Before the kit's router: the shop answers the kit's result link with its own order page.
  app.use(orderRoutes(ctx));
  // The kit's router reads the bodies it needs itself; the shop's routes parse their own forms.
  app.use('/checkout', kit.router);
  app.use(ADMIN_PATH, admin);
  app.use(sameOriginPosts(), shopRoutes(ctx), checkoutRoutes(ctx));
  app.use(pageSecurity(), (_req: Request, res: Response) => {
    render(res, 'message', { title: 'Not found', heading: 'Page not found', text: 'The page you asked for is not here.' }, 404);
  });
  app.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    logger.error({ err }, 'demo: request failed');
    res.status(500).type('text/plain').send('Something went wrong. Please try again.');
  });
  return app;
}
