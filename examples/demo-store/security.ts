/**
 * The shop's own pages run under the kit's strict CSP (per-request nonce, no inline script or
 * style). Every POST must come from a page of this shop: the browser's Origin header is checked,
 * which with SameSite cookies is enough for a shop without sessions.
 */
import type { Request, RequestHandler } from 'express';
import { cspMiddleware, originOf } from '../../server/index.js';

/**
 * CSP for a shop page; `formActions` lists the other origins its forms may post or redirect to.
 * Referrer-Policy same-origin (the kit's default is no-referrer) so browsers send the real
 * Origin on the shop's own form posts.
 */
export function pageSecurity(formActions: readonly string[] = []): RequestHandler {
  const csp = cspMiddleware(() => formActions);
  return (req, res, next) => {
    csp(req, res, (err?: unknown) => {
      if (err !== undefined) {
        next(err);
        return;
      }
      res.set('Referrer-Policy', 'same-origin');
      next();
    });
  };
}

export function isSameOrigin(req: Request): boolean {
  const host = req.get('host');
  const origin = req.get('origin');
  const claimed = origin !== undefined && origin !== 'null' ? originOf(origin) : originOf(req.get('referer') ?? '');
  return host !== undefined && claimed === `${req.protocol}://${host}`;
}

/** Refuses a state-changing request that did not come from this shop's pages. */
export function sameOriginPosts(): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || isSameOrigin(req)) {
      next();
      return;
    }
    res.status(403).type('text/plain').send('This form was not sent from this shop, so nothing was changed. Go back, reload the page and try again.');
  };
}
