/**
 * Checkout: the shop's own form (e-mail, addresses, method), then `kit.createPayment` with the
 * cart priced on the server, then the pay page, which embeds the kit's pay form (pug mixins and
 * `payFormLocals`) next to the sandbox's test cards. The form posts to the kit's pay route.
 */
import { randomBytes } from 'node:crypto';
import express, { Router, type Request, type Response } from 'express';
import { payFormLocals, type Order, type OrderSummary, type PayFormOptions } from '../../../server/index.js';
import { priceCart, readCart, saveCart, setQuantity, type CartLines } from '../cart.js';
import { billingOf, COUNTRIES, deliveryOf, formValues, METHODS, parseCheckout } from '../checkout-form.js';
import { readHistory, ownsOrder, rememberOrder } from '../history.js';
import { pageSecurity } from '../security.js';
import { orderItems } from '../order-view.js';
import { DEMO_TEST_CARDS, sampleExpiry } from '../test-cards.js';
import type { Render } from '../views.js';
import type { ShopContext } from './context.js';

/** The methods the order allows: the one the shopper picked first, the others one click away. */
export function methodsFor(chosen: string): ('hosted' | 'card' | 'apm')[] {
  const all = METHODS.map((m) => m.value);
  return [...all.filter((m) => m === chosen), ...all.filter((m) => m !== chosen)];
}

/**
 * The shop's pay page: the kit's form inside the shop's layout. The kit calls it too (its
 * `payPage` option), so a form sent back with errors keeps the shop's header, footer and test cards.
 */
export function renderPayPage(render: Render, publicUrl: string, res: Response, page: { order: Order; summary: OrderSummary; form: PayFormOptions; status: number; title: string }): void {
  render(res, 'pay', {
    title: page.title,
    summary: page.summary,
    form: page.form,
    assetsBase: `${new URL(publicUrl).pathname}/assets`,
    testCards: DEMO_TEST_CARDS,
    expiry: sampleExpiry(),
  }, page.status);
}

/** The checkout form filled from an earlier order of this browser (e-mail and addresses; "try again"). */
function valuesFrom(order: Order): Record<string, string> {
  const data = order.data as { shopper?: { email?: string }; billing?: Record<string, string | undefined>; delivery?: Record<string, string | undefined>; methods?: string[] };
  const b = data.billing ?? {};
  const d = data.delivery ?? {};
  const values: Record<string, string> = {
    email: data.shopper?.email ?? '',
    first_name: b.firstName ?? '', last_name: b.lastName ?? '', address: b.address ?? '',
    postal_code: b.postalCode ?? '', city: b.city ?? '', country: b.country ?? 'NL',
    method: data.methods?.[0] ?? 'hosted',
  };
  const same = ['firstName', 'lastName', 'address', 'postalCode', 'city', 'country'].every((k) => (b[k] ?? '') === (d[k] ?? ''));
  if (!same) {
    Object.assign(values, {
      ship_elsewhere: 'on', delivery_first_name: d.firstName ?? '', delivery_last_name: d.lastName ?? '', delivery_address: d.address ?? '',
      delivery_postal_code: d.postalCode ?? '', delivery_city: d.city ?? '', delivery_country: d.country ?? '',
    });
  }
  return values;
}

/** KL-20250101-7F3K9Q: readable, unique enough for a demo, within the gateway's 50 characters. */
export function newOrderNo(now = new Date()): string {
  const day = now.toISOString().slice(0, 10).replace(/-/g, '');
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const suffix = [...randomBytes(6)].map((b) => alphabet[b % 32]).join('');
  return `KL-${day}-${suffix}`;
}

export function checkoutRoutes(ctx: ShopContext): Router {
  const { kit, cookies, render, logger } = ctx;
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 30 });
  const page = pageSecurity();

  const showForm = (res: express.Response, cart: ReturnType<typeof priceCart>, values: Record<string, string>, errors: Record<string, string>, status = 200): void => {
    render(res, 'checkout', { title: 'Checkout', cart, values, errors, countries: COUNTRIES, methods: METHODS }, status);
  };

  router.get('/cart/checkout', page, async (req, res) => {
    const cart = priceCart(readCart(cookies, req));
    if (cart.count === 0) {
      res.redirect(303, '/cart');
      return;
    }
    // "Try again" comes back here with the earlier order: its e-mail and addresses are kept.
    const from = typeof req.query.from === 'string' ? req.query.from : '';
    const earlier = from !== '' && ownsOrder(cookies, req, from) ? await kit.store.get(from) : null;
    showForm(res, cart, earlier === null ? { method: 'hosted', country: 'NL' } : valuesFrom(earlier), {});
  });

  router.post('/cart/checkout', page, form, async (req, res) => {
    const cart = priceCart(readCart(cookies, req));
    if (cart.count === 0) {
      res.redirect(303, '/cart');
      return;
    }
    const parsed = parseCheckout(req.body);
    if (!parsed.ok) {
      showForm(res, cart, formValues(req.body), parsed.errors, 400);
      return;
    }
    const input = parsed.form;
    const history = readHistory(cookies, req);
    const billing = billingOf(input);
    // Amount, currency and items come from the catalogue on the server, never from the form.
    const { order } = await kit.createPayment({
      orderNo: newOrderNo(),
      amount: cart.total,
      currency: cart.currency,
      items: cart.lines.map((l) => ({ name: l.product.name, sku: l.product.sku, unitPrice: l.product.price, quantity: l.quantity })),
      // The demo has no sign-in: the browser's signed shopper cookie stands in for an account, so
      // its saved cards are offered in this browser only.
      shopper: { id: history.shopper, account: true, email: input.email, firstName: billing.firstName, lastName: billing.lastName },
      billing,
      delivery: deliveryOf(input),
      // Every method, the shopper's choice first: the pay page offers the others one click away.
      methods: methodsFor(input.method),
    });
    logger.info({ orderNo: order.orderNo, method: input.method, amount: order.amount }, 'demo: order created');
    rememberOrder(cookies, req, res, history, order.id);
    saveCart(cookies, req, res, []);
    // The shop's own pay page embeds the kit's form; redirecting to the returned `payUrl` (the
    // kit's own pay page) works just as well.
    res.redirect(303, `/orders/${order.id}/pay`);
  });

  // After a refusal: the same items back in the cart, to pay again with another card or method.
  router.post('/orders/:id/reorder', async (req: Request<{ id: string }>, res) => {
    const order = ownsOrder(cookies, req, req.params.id) ? await kit.store.get(req.params.id) : null;
    if (order === null) {
      res.redirect(303, '/orders');
      return;
    }
    let lines: CartLines = [];
    for (const item of orderItems(order)) lines = setQuantity(lines, item.sku, item.quantity);
    saveCart(cookies, req, res, lines);
    res.redirect(303, `/cart/checkout?from=${encodeURIComponent(order.id)}`);
  });

  router.get('/orders/:id/pay', pageSecurity([kit.context.options.publicUrl, ctx.gatewayUrl]), async (req: Request<{ id: string }>, res) => {
    const id = req.params.id;
    const order = ownsOrder(cookies, req, id) ? await kit.store.get(id) : null;
    if (order === null) {
      render(res, 'message', { title: 'Not found', heading: 'We could not find that order', text: 'Orders are listed in the browser they were placed from.' }, 404);
      return;
    }
    if (order.state !== 'created' || order.data.submittedAt !== undefined) {
      res.redirect(303, `/orders/${order.id}`);
      return;
    }
    const locals = await payFormLocals(kit.context, req, res, order);
    const title = locals.form.t('pay.title', { orderNo: order.orderNo });
    renderPayPage(render, kit.context.options.publicUrl, res, { order, summary: locals.order, form: locals.form, status: 200, title });
  });

  return router;
}
