/**
 * The checkout router a shop mounts with `app.use('/checkout', kit.router)`: pay pages, assets,
 * return/cancel, result and notify, plus an error handler that answers a clean page (no stack,
 * no request data) for anything that goes wrong below the mount point.
 */
import { Router, type ErrorRequestHandler } from 'express';
import { isKitError } from '../errors.js';
import type { KitContext } from './context.js';
import { mountChecker } from './mount-check.js';
import { createNotifyRoutes, type NotifyRoutes } from './notify.js';
import { createPayRoutes, type PayRoutes } from './pay/route.js';
import { createMessagePage, createResultRoutes } from './result.js';
import { catalogueMiddleware, useCatalogue } from './render.js';
import { createReturnRoutes } from './return.js';
import { cspMiddleware } from '../http/csp.js';
import { setNoSniff } from '../http/no-sniff.js';

/**
 * A pay path the router would match to /pay/:token as it is: one segment of token characters
 * (base64url and the dot), nothing to decode, no trailing slash or query.
 */
const HOT_TOKEN_RE = /^\/pay\/[A-Za-z0-9_.-]+$/;

/** The HTTP status an error asks for (http-errors style `status`, our ValidationError → 400). */
export function statusOf(err: unknown): number {
  if (isKitError(err)) {
    if (err.code === 'ERR_VALIDATION') return 400;
    if (err.code === 'ERR_ORDER_NOT_FOUND') return 404;
    if (err.code === 'ERR_ORDER_STATE' || err.code === 'ERR_ORDER_EXISTS') return 409;
  }
  if (typeof err === 'object' && err !== null) {
    const { status, statusCode } = err as { status?: unknown; statusCode?: unknown };
    const code = typeof status === 'number' ? status : typeof statusCode === 'number' ? statusCode : 500;
    if (Number.isInteger(code) && code >= 400 && code <= 599) return code;
  }
  return 500;
}

const MESSAGES: Record<number, [string, string]> = {
  400: ['Something is not right', 'The request could not be understood. Please go back and try again.'],
  403: ['Not allowed', 'This page has expired or the request was not allowed. Please go back to the shop and try again.'],
  404: ['Page not found', 'This link is not valid or has expired. Please return to the shop.'],
  413: ['Too much data', 'The request was too large.'],
  429: ['Too many attempts', 'Please wait a few minutes before trying again.'],
};

export function createCheckoutRouter(ctx: KitContext): Router {
  // One flat router (no nested routers to walk through), the busiest route first.
  const router = Router();
  const checkMount = mountChecker(ctx.options.publicUrl, ctx.logger);
  const catalogue = ctx.options.i18n;
  // Filled in below, once the routes exist (the first request comes after that).
  const hot: { notify?: NotifyRoutes; pay?: PayRoutes } = {};
  // Every request: the mount check and nosniff, first. The two hot POSTs (the gateway's
  // notification, the pay form) then run their route's handler directly, with what the walk
  // would have set up for them (params, req.route, the page catalogue): in a profile of the
  // hosted-page POST the router's own time went from 5.3% to 2.6% of the route's. Any other
  // path, a query string or an encoded character takes the walk to the same routes.
  router.use((req, res, next) => {
    checkMount(req);
    setNoSniff(res);
    if (req.method !== 'POST' || hot.notify === undefined || hot.pay === undefined) {
      next();
      return;
    }
    const url = req.url;
    if (url === '/notify') {
      req.params = {};
      req.route = hot.notify.notifyRoute;
      return hot.notify.notify(req, res, next);
    }
    if (url.startsWith('/pay/') && HOT_TOKEN_RE.test(url)) {
      req.params = { token: url.slice(5) };
      req.route = hot.pay.payRoute;
      useCatalogue(res, catalogue);
      return hot.pay.payPost(req, res, next);
    }
    next();
  });
  hot.notify = createNotifyRoutes(ctx, router);
  router.use(catalogueMiddleware(catalogue));
  hot.pay = createPayRoutes(ctx, router); // pay pages and /assets
  createReturnRoutes(ctx, router);
  createResultRoutes(ctx, router);

  const message = createMessagePage(ctx.options.shopUrl);
  const csp = cspMiddleware();
  const onError: ErrorRequestHandler = (err, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const status = statusOf(err);
    ctx.logger[status >= 500 ? 'error' : 'warn']({ err, status, method: req.method, path: req.baseUrl }, 'checkout: request failed');
    const [heading, text] = MESSAGES[status] ?? (status >= 500
      ? ['Something went wrong', 'We could not complete this request. Please try again in a moment.']
      : ['Request not accepted', 'Please go back to the shop and try again.']);
    if (req.path === '/notify') {
      res.status(status).type('text/plain').send(status >= 500 ? 'try again later' : 'rejected');
      return;
    }
    csp(req, res, () => {
      message(req, res, status, heading, text);
    });
  };
  router.use(onError);
  return router;
}
