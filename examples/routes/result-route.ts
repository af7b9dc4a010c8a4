/**
 * Needs: `npm install acquiring-checkout-kit express` in an ESM app (`"type": "module"`).
 *
 * Copy this: the shop's own result page, answered instead of the kit's. The kit sends the
 * shopper to `{publicUrl}/result/:token` after paying (and after 3-D Secure, the APM issuer or
 * the hosted page); the signed token names the order, so no session is needed. Mount it before
 * the kit's router:
 *
 *   app.use(resultRoute(kit));
 *   app.use('/checkout', kit.router);
 */
import { Router, type Request } from 'express';
import { cspMiddleware, isFinal, type CheckoutKit, type Order } from 'acquiring-checkout-kit';

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const WORDS: Partial<Record<Order['state'], string>> = {
  paid: 'Thank you! Your order is paid.',
  authorized: 'Thank you! Your payment is authorised.',
  declined: 'Your payment was declined. No money was taken.',
  failed: 'The payment failed. No money was taken.',
  cancelled: 'The payment was cancelled. No money was taken.',
};

function page(order: Order): string {
  const open = !isFinal(order.state);
  const words = open ? 'Confirming your payment…' : (WORDS[order.state] ?? `Your order is ${order.state.replace(/_/g, ' ')}.`);
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // While the gateway has not answered, the page reloads itself: no script needed under the CSP.
    open ? '<meta http-equiv="refresh" content="3">' : '',
    `<title>Order ${escape(order.orderNo)}</title></head><body>`,
    `<h1>${escape(words)}</h1><p>Order ${escape(order.orderNo)}</p>`,
    '</body></html>',
  ].join('');
}

export function resultRoute(kit: Pick<CheckoutKit, 'context' | 'store'>): Router {
  const path = new URL(kit.context.options.publicUrl).pathname.replace(/\/+$/, '');
  const router = Router();
  router.get(`${path}/result/:token`, cspMiddleware(), async (req: Request<{ token: string }>, res) => {
    const claim = kit.context.tokens.verify(req.params.token, 'result');
    const order = claim === null ? null : await kit.store.get(claim.orderId);
    if (order === null) {
      res.status(404).type('text/plain').send('This link is not valid or has expired.');
      return;
    }
    res.set('Cache-Control', 'no-store').type('html').send(page(order));
  });
  return router;
}
