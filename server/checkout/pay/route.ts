/**
 * GET and POST /pay/:token — the shopper's pay page and the pay route, plus /assets.
 *
 * POST, in order: rate limit (card-testing guard) → token → CSRF → "already submitted?" →
 * form validation → the request is built from the stored order and checked locally → the engine
 * moves the order created → pending with the submission's dedupe key (only the one request whose
 * fact made that move sends, so a second POST can never charge twice) → the gateway is called
 * once → its answer goes to the reconcile engine → result page, issuer page or hosted page.
 * Card number, CVV and expiry are never stored, logged or rendered back.
 */
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { inOrder } from '../../http/in-order.js';
import { ValidationError } from '../../errors.js';
import type { PreparedPayment } from '../../gateway/operations/payments.js';
import { observePayStarted } from '../../observability/observer.js';
import { requestSpan } from '../../tracing.js';
import type { Order } from '../../orders/types.js';
import type { KitContext } from '../context.js';
import { deviceData } from '../device.js';
import { seeOtherNoStore } from '../../http/no-store.js';
import { HttpError, readPostedBody } from '../../http/posted-body.js';
import { createAssetRoutes } from '../render-assets.js';
import { createPayPages } from '../render-pages.js';
import { compileView, sendPage, translatorOf } from '../render.js';
import { cspMiddleware } from '../../http/csp.js';
import { payRateLimit, RATE_LIMIT_MESSAGE } from '../../http/rate-limit.js';
import { payCsrf, payFormLocals, type PayFormState } from './form.js';
import { allowedMethods, paymentRequest, payOrderData, type PayOrderData } from './request.js';
import { PAY_FIELDS, parsePayBody, repeatedFieldErrors, type PayBody } from './schema.js';
import { cardSaver, createSavedCardRoutes, payWithSavedCard, savedCardChoice, type CardSaver } from './saved-cards.js';
import { sendPayment } from './send.js';
import { awaitsSubmission, markSubmitted, orderForToken } from './submit.js';

/** The pay form is small; anything larger is not a pay form. */
const PAY_BODY_LIMIT = 16 * 1024;

/**
 * Form fields the shopper controls; a local check failing on any other field is the order's
 * fault. The client names a refused field by its wire name, which for these is the form's own
 * (the pay form posts the interface's names).
 */
const SHOPPER_FIELDS: ReadonlySet<string> = new Set(PAY_FIELDS.filter((f) => f !== 'method'));

type Prepared =
  | { ok: true; payment: PreparedPayment; saveCard: CardSaver | null }
  | { ok: false; shopperErrors: Record<string, string> | null; fields: string[] };

/**
 * Turns a refused request into the shopper's field errors when the shopper typed every field at
 * fault (card and APM forms), or names the order's broken fields.
 */
function refused(error: unknown, typedByShopper: boolean): Prepared {
  if (!(error instanceof ValidationError)) throw error;
  const fields = [...new Set(error.issues.map((i) => i.field.split(/[.[]/)[0] ?? '(input)'))];
  if (typedByShopper && fields.every((f) => SHOPPER_FIELDS.has(f))) {
    return { ok: false, shopperErrors: Object.fromEntries(fields.map((f) => [f, 'Check this field and try again'])), fields };
  }
  return { ok: false, shopperErrors: null, fields };
}

/** Builds, checks and signs the gateway request before anything is marked or sent. */
function prepare(ctx: KitContext, req: Request, res: Response, order: Order, data: PayOrderData, body: PayBody): Prepared {
  const { data: device, dropped } = deviceData(req, req.body);
  if (dropped.length > 0) ctx.logger.debug({ orderId: order.id, dropped }, 'Device fields dropped');
  try {
    const saveCard = body.method === 'card' ? cardSaver(ctx, order, data, body) : null;
    const request = paymentRequest(ctx, order, data, device, body, translatorOf(req, res).locale, { saveCard: saveCard !== null });
    return { ok: true, payment: ctx.client.payments.prepare(request), saveCard };
  } catch (error) {
    return refused(error, body.method !== 'hosted');
  }
}

function shopperValues(body: unknown): PayFormState['values'] {
  const source = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const text = (key: string): string | undefined => (typeof source[key] === 'string' ? source[key].slice(0, 50) : undefined);
  // What the shopper typed, so an error costs them nothing but the card number and security
  // code, which are never sent back (the expiry is not secret and is shown again).
  const digits = (key: string, max: number): string | undefined => {
    const value = text(key);
    return value !== undefined && /^\d*$/.test(value) ? value.slice(0, max) : undefined;
  };
  return {
    first_name: text('first_name'),
    last_name: text('last_name'),
    payment_method: text('payment_method'),
    expiration_month: digits('expiration_month', 2),
    expiration_year: digits('expiration_year', 4),
    person_document_type: text('person_document_type'),
    person_document_number: text('person_document_number'),
    person_birth_date: text('person_birth_date'),
    person_phone: text('person_phone'),
    method: text('method'),
  };
}

export interface PayRoutes {
  router: Router;
  /** POST /pay/:token as one handler (needs `req.params.token` and the page catalogue). */
  payPost: RequestHandler;
  /** The route it is registered on, for `req.route` when the router calls it before its walk. */
  payRoute: object;
}

/** Adds the routes to `router` (a new one by default). */
export function createPayRoutes(ctx: KitContext, router: Router = Router()): PayRoutes {
  const pages = createPayPages();
  const payView = compileView('pay');
  const csrf = payCsrf(ctx);
  const formActions = (): string[] => [ctx.options.publicUrl, ctx.options.gateway.baseUrl];
  const limiter = payRateLimit({
    ...ctx.options.rateLimit,
    onLimited: (req, res) => {
      ctx.logger.warn({ ip: req.ip, path: req.baseUrl }, 'Pay rate limit reached');
      ctx.observer?.rateLimited('pay');
      ctx.observer?.cardTestingSuspected('rate_limit');
      pages.error(req, res, 429, { heading: 'Too many attempts', message: RATE_LIMIT_MESSAGE });
    },
  });

  /**
   * Reads the form whatever body parser the shop mounted before the kit (none, urlencoded, json,
   * text or raw for every type): the one body reader notify and return use. `req.body` becomes
   * the posted fields as strings, which the CSRF check and the form parsers read. Returns the
   * names of fields sent more than once, or null after answering that the form is unreadable.
   */
  async function readFields(req: Request, res: Response): Promise<string[] | null> {
    try {
      const posted = await readPostedBody(req, PAY_BODY_LIMIT);
      req.body = posted.fields;
      return posted.repeated;
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 400;
      pages.error(req, res, status, {
        heading: status === 413 ? 'This form is too large' : 'This form could not be read',
        message: 'The payment was not sent. Go back to the payment page, reload it and try again.',
      });
      return null;
    }
  }

  /** `readFields` as a step of a route. */
  async function readForm(req: Request, res: Response, next: NextFunction): Promise<void> {
    if ((await readFields(req, res)) !== null) next();
  }

  async function renderForm(req: Request, res: Response, order: Order, state: PayFormState, status = 200): Promise<void> {
    const locals = await payFormLocals(ctx, req, res, order, state);
    const translator = translatorOf(req, res);
    const title = translator.t('pay.title', { orderNo: order.orderNo });
    if (ctx.options.payPage !== undefined) {
      // The shop's own layout, for the first render and for every re-render after an error.
      await ctx.options.payPage(req, res, { order, summary: locals.order, form: locals.form, status, title, translator });
      return;
    }
    sendPage(req, res, payView, { title, ...locals }, status);
  }

  function unpayable(req: Request, res: Response, order: Order, fields: string[]): void {
    ctx.logger.error({ orderId: order.id, orderNo: order.orderNo, fields }, 'Order data cannot build a payment request');
    pages.error(req, res, 500, {
      heading: 'This order cannot be paid online',
      message: 'Something in this order stops it from being paid. No money was taken. Please contact the shop.',
    });
  }

  /** The order's pay data, or null after answering that the order cannot be paid. */
  function orderData(req: Request, res: Response, order: Order): PayOrderData | null {
    try {
      return payOrderData(order);
    } catch (error) {
      unpayable(req, res, order, [error instanceof Error && 'field' in error ? String(error.field) : 'order.data']);
      return null;
    }
  }

  createAssetRoutes(router);
  createSavedCardRoutes(ctx, router, pages, [cspMiddleware(formActions), requestSpan('checkout saved card remove'), limiter, readForm]);

  router.get('/pay/:token', cspMiddleware(formActions), async (req, res) => {
    const order = await orderForToken(ctx, pages, req, res);
    if (order === null) return;
    if (!awaitsSubmission(order)) {
      seeOtherNoStore(res, ctx.urls.result(order.id));
      return;
    }
    const data = orderData(req, res, order);
    if (data === null) return;
    if (allowedMethods(ctx, data).length === 0) {
      unpayable(req, res, order, ['methods']);
      return;
    }
    await renderForm(req, res, order, {});
  });

  /** The pay POST after its guards: the body is read, `repeatedFields` names fields sent twice. */
  async function pay(req: Request, res: Response, repeatedFields: string[]): Promise<void> {
    const order = await orderForToken(ctx, pages, req, res);
    if (order === null) return;
    const refused = csrf.check(req, order.id);
    if (refused !== null) {
      ctx.logger.info({ orderId: order.id, reason: refused }, 'Pay form refused: CSRF check failed');
      pages.error(req, res, 403, {
        heading: 'This form has expired',
        message: 'For your security the payment was not sent. Go back to the payment page, reload it and try again.',
        link: { href: ctx.urls.pay(order.id), text: 'Back to the payment page' },
      });
      return;
    }
    if (!awaitsSubmission(order)) {
      ctx.logger.info({ orderId: order.id, state: order.state }, 'Pay form sent again for a submitted order: not sent to the gateway');
      seeOtherNoStore(res, ctx.urls.result(order.id));
      return;
    }
    const data = orderData(req, res, order);
    if (data === null) return;
    const values = shopperValues(req.body);
    const repeated = repeatedFieldErrors(repeatedFields);
    if (Object.keys(repeated).length > 0) {
      ctx.logger.warn({ orderId: order.id, fields: Object.keys(repeated) }, 'Pay form refused: a field was sent more than once');
      ctx.observer?.cardTestingSuspected('repeated_fields');
      await renderForm(req, res, order, { values, errors: repeated }, 400);
      return;
    }
    const savedCard = savedCardChoice(req.body);
    if (savedCard !== null) {
      const refuse = (errors: Record<string, string>): Promise<void> => renderForm(req, res, order, { values, errors }, 400);
      await payWithSavedCard({ ctx, req, res, order, data, pages, refuse }, savedCard);
      return;
    }
    const parsed = parsePayBody(req.body);
    if (!parsed.ok) {
      await renderForm(req, res, order, { values, errors: parsed.errors }, 400);
      return;
    }
    if (!allowedMethods(ctx, data).includes(parsed.body.method)) {
      await renderForm(req, res, order, { values, errors: { method: 'This payment method is not available for this order' } }, 400);
      return;
    }
    const prepared = prepare(ctx, req, res, order, data, parsed.body);
    if (!prepared.ok) {
      if (prepared.shopperErrors !== null) await renderForm(req, res, order, { values, errors: prepared.shopperErrors }, 400);
      else unpayable(req, res, order, prepared.fields);
      return;
    }
    const submitted = await markSubmitted(ctx, order, parsed.body.method);
    if (submitted === null) {
      seeOtherNoStore(res, ctx.urls.result(order.id));
      return;
    }
    observePayStarted(ctx.observer, parsed.body.method);
    await sendPayment({ ctx, req, res, order: submitted, pages }, prepared.payment, prepared.saveCard ?? undefined);
  }

  /**
   * POST /pay/:token's steps, in order: CSP, span, rate limit, body, pay. One handler (see
   * in-order.ts), which the checkout router also calls before its walk (router.ts).
   */
  const payPost = inOrder([
    cspMiddleware(formActions),
    requestSpan('checkout pay'),
    limiter,
    async (req, res) => {
      const repeated = await readFields(req, res);
      if (repeated !== null) await pay(req, res, repeated);
    },
  ]);
  const payRoute = router.route('/pay/:token');
  payRoute.post(payPost);
  return { router, payPost, payRoute };
}
