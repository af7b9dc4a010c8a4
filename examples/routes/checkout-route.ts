/**
 * Needs: `npm install acquiring-checkout-kit express zod` in an ESM app (`"type": "module"`).
 *
 * Copy this: the shop's checkout route. It prices the cart on the server, creates the payment
 * with the kit and sends the shopper to the kit's pay page with a 303. The browser only ever
 * sends an e-mail address here: amount, currency and items come from the shop's own data.
 *
 *   app.use(checkoutRoute(kit, loadCart));   // POST /checkout
 */
import express, { Router, type Request } from 'express';
import { z } from 'zod';
import type { CheckoutKit } from 'acquiring-checkout-kit';

export interface CartLine {
  sku: string;
  name: string;
  /** Minor units: 1250 is 12.50. */
  unitPrice: number;
  quantity: number;
}

export interface Cart {
  id: string;
  /** Bump it whenever the cart changes: one order per cart revision, so a double click pays once. */
  revision: number;
  currency: string;
  lines: CartLine[];
}

/** How the route finds the shopper's cart: your session, your database. */
export type LoadCart = (req: Request) => Promise<Cart | null>;

const formSchema = z.object({ email: z.email().max(100) });

export function checkoutRoute(kit: Pick<CheckoutKit, 'createPayment'>, loadCart: LoadCart): Router {
  const router = Router();
  router.post('/checkout', express.urlencoded({ extended: false, limit: '4kb' }), async (req, res) => {
    const cart = await loadCart(req);
    if (cart === null || cart.lines.length === 0) {
      res.redirect(303, '/cart');
      return;
    }
    const form = formSchema.safeParse(req.body);
    if (!form.success) {
      res.status(400).type('text/plain').send('Enter a valid e-mail address (field: email).');
      return;
    }
    const { payUrl } = await kit.createPayment({
      orderNo: `CART-${cart.id}-${String(cart.revision)}`,
      amount: cart.lines.reduce((sum, line) => sum + line.unitPrice * line.quantity, 0),
      currency: cart.currency,
      items: cart.lines.map((line) => ({ name: line.name, sku: line.sku, unitPrice: line.unitPrice, quantity: line.quantity })),
      shopper: { id: cart.id, email: form.data.email },
    });
    res.redirect(303, payUrl);
  });
  return router;
}
