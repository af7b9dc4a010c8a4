/**
 * Saved cards on the pay page: the "save this card" choice, the one-click offer of the shopper's
 * saved cards, paying with one (its `token_id` instead of card data; no security code, which the
 * gateway does not require with a token) and removing one. Only the order's own `shopper.id` is
 * ever asked for, and only when the shop marks that id as a signed-in account (`shopper.account`):
 * a guest id shared by many shoppers must never show anyone a card.
 */
import type { Request, RequestHandler, Response, Router } from 'express';
import { ValidationError } from '../../errors.js';
import type { AuthoriseResult } from '../../gateway/operations/authorise-result.js';
import { seeOtherNoStore } from '../../http/no-store.js';
import { observePayStarted } from '../../observability/observer.js';
import { cardBrand, savedCardExpired, type SavedCard } from '../../orders/saved-cards.js';
import type { Order } from '../../orders/types.js';
import type { KitContext } from '../context.js';
import { deviceData } from '../device.js';
import { translatorOf } from '../render.js';
import type { PayPages } from '../render-pages.js';
import { payCsrf, REMOVED_FLAG } from './form.js';
import { paymentRequest, payOrderData, savedCardsFor, type PayOrderData } from './request.js';
import type { CardPayBody } from './schema.js';
import { sendPayment } from './send.js';
import { markSubmitted, orderForToken } from './submit.js';

/** The message the form shows when the chosen saved card is not (or no longer) the shopper's. */
export const SAVED_CARD_UNAVAILABLE = 'Choose one of your saved cards, or pay with a card';

/** Stores the token of an approved answer as the shopper's saved card. */
export type CardSaver = (result: AuthoriseResult) => Promise<void>;

/**
 * When the shopper ticked "save this card" on an order that may save one: the request asks for
 * a token, and the returned function stores it after the gateway's answer. Only brand, last four
 * digits and expiry are taken from the card; the number itself is not kept.
 */
export function cardSaver(ctx: KitContext, order: Order, data: PayOrderData, body: CardPayBody): CardSaver | null {
  const store = savedCardsFor(ctx, data);
  if (body.save_card !== 'yes' || store === null) return null;
  const card = {
    shopperId: data.shopper.id,
    brand: cardBrand(body.card),
    last4: body.card.slice(-4),
    expiryMonth: Number(body.expiration_month),
    expiryYear: Number(body.expiration_year),
  };
  return async (result) => {
    if (result.outcome !== 'approved' && result.outcome !== 'authorized') return;
    if (result.tokenId === null) {
      // A 3-D Secure challenge or a gateway that did not tokenise: the answer carries no token.
      ctx.logger.info({ orderId: order.id, outcome: result.outcome }, 'Card not saved: the gateway returned no token_id');
      return;
    }
    try {
      const saved = await store.save({ ...card, tokenId: result.tokenId });
      ctx.logger.info({ orderId: order.id, savedCardId: saved.id, token_id: result.tokenId }, 'Card saved for the shopper');
    } catch (error) {
      ctx.logger.warn({ orderId: order.id, error }, 'Card could not be saved; the payment is unaffected');
    }
  };
}

/** The saved card a pay POST chose (`method=saved_card`), or null for any other POST. */
export function savedCardChoice(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const fields = body as Record<string, unknown>;
  if (fields.method !== 'saved_card') return null;
  return typeof fields.saved_card === 'string' ? fields.saved_card.trim().slice(0, 64) : '';
}

export interface SavedCardPayment {
  ctx: KitContext;
  req: Request;
  res: Response;
  order: Order;
  data: PayOrderData;
  pages: PayPages;
  /** Shows the form again with these (English) field errors, status 400. */
  refuse(errors: Record<string, string>): Promise<void>;
}

/** The card payment for a saved card: its `token_id` and no card number, expiry or security code. */
function tokenPayment(p: SavedCardPayment, card: SavedCard, device: ReturnType<typeof deviceData>['data']) {
  const holder = { first_name: p.data.shopper.firstName ?? p.data.billing?.firstName ?? '', last_name: p.data.shopper.lastName ?? p.data.billing?.lastName ?? '' };
  const body: CardPayBody = { method: 'card', card: '', expiration_month: '', expiration_year: '', security_code: '', ...holder };
  const language = translatorOf(p.req, p.res).locale;
  return paymentRequest(p.ctx, p.order, p.data, device, body, language, { tokenId: card.tokenId });
}

/** Pays the order with one of the shopper's saved cards (checked to be theirs). */
export async function payWithSavedCard(p: SavedCardPayment, savedCardId: string): Promise<void> {
  const { ctx, req, res, order, data, pages } = p;
  const store = savedCardsFor(ctx, data);
  const card = store === null || savedCardId === '' ? null : await store.get(data.shopper.id, savedCardId);
  if (card === null || savedCardExpired(card, new Date())) {
    ctx.logger.info({ orderId: order.id, savedCardId }, 'Pay form refused: the saved card is not the shopper\'s or not usable');
    await p.refuse({ saved_card: SAVED_CARD_UNAVAILABLE });
    return;
  }
  const { data: device } = deviceData(req, req.body);
  let prepared;
  try {
    prepared = ctx.client.payments.prepare(tokenPayment(p, card, device));
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    ctx.logger.error({ orderId: order.id, fields: error.issues.map((i) => i.field) }, 'Order data cannot build a payment request');
    pages.error(req, res, 500, {
      heading: 'This order cannot be paid online',
      message: 'Something in this order stops it from being paid. No money was taken. Please contact the shop.',
    });
    return;
  }
  const submitted = await markSubmitted(ctx, order, 'card');
  if (submitted === null) {
    seeOtherNoStore(res, ctx.urls.result(order.id));
    return;
  }
  observePayStarted(ctx.observer, 'card');
  ctx.logger.info({ orderId: order.id, savedCardId: card.id }, 'Paying with a saved card');
  await sendPayment({ ctx, req, res, order: submitted, pages }, prepared);
}

/**
 * POST /pay/:token/saved-cards/:id/remove: the signed pay token names the order, the order names
 * the shopper, and only that shopper's card is removed. CSRF-checked like the pay form.
 */
export function createSavedCardRoutes(ctx: KitContext, router: Router, pages: PayPages, before: RequestHandler[]): void {
  const csrf = payCsrf(ctx);
  router.post('/pay/:token/saved-cards/:id/remove', ...before, async (req, res) => {
    const order = await orderForToken(ctx, pages, req, res);
    if (order === null) return;
    if (csrf.check(req, order.id) !== null) {
      pages.error(req, res, 403, {
        heading: 'This form has expired',
        message: 'Nothing was changed. Go back to the payment page, reload it and try again.',
        link: { href: ctx.urls.pay(order.id), text: 'Back to the payment page' },
      });
      return;
    }
    let data: PayOrderData;
    try {
      data = payOrderData(order);
    } catch {
      seeOtherNoStore(res, ctx.urls.pay(order.id));
      return;
    }
    const store = savedCardsFor(ctx, data);
    const id = String(req.params.id ?? '').slice(0, 64);
    const removed = store === null ? false : await store.remove(data.shopper.id, id);
    ctx.logger.info({ orderId: order.id, savedCardId: id, removed }, removed ? 'Saved card removed by the shopper' : 'Saved card removal found nothing to remove');
    seeOtherNoStore(res, removed ? `${ctx.urls.pay(order.id)}?${REMOVED_FLAG}=1` : ctx.urls.pay(order.id));
  });
}
