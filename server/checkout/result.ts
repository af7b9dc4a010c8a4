/**
 * GET /result/:token — the payment's real state for the shopper. While the payment is still
 * open the page says "confirming…" and refreshes itself with a meta refresh (no script, so it
 * works under the CSP and without JavaScript) until the state is final.
 */
import { Router } from 'express';
import { splitCodeText, STEP_RESULT_CODES } from '../gateway/codes.js';
import { formatCard, formatDate, formatMoney, type Translator } from '../i18n/index.js';
import { isFinal } from '../orders/state-machine.js';
import type { OrderStore } from '../orders/store.js';
import type { Order, OrderState } from '../orders/types.js';
import type { KitContext } from './context.js';
import { compileView, sendPage, translatorOf, useOrderLocale, type View } from './render.js';
import { cspMiddleware } from '../http/csp.js';

/** Seconds between refreshes while the gateway has not answered yet. */
export const RESULT_REFRESH_SECONDS = 3;

interface StatePage {
  heading: string;
  message: string;
  tone: 'ok' | 'bad' | 'wait' | 'info';
}

const PAGES: Record<OrderState, StatePage> = {
  created: { heading: 'Confirming your payment…', message: 'We are waiting for the payment provider to confirm your payment.', tone: 'wait' },
  pending: { heading: 'Confirming your payment…', message: 'We are waiting for the payment provider to confirm your payment. Please do not pay again.', tone: 'wait' },
  requires_action: { heading: 'Confirming your payment…', message: 'We are waiting for your bank to confirm the payment. Please do not pay again.', tone: 'wait' },
  paid: { heading: 'Payment received', message: 'Thank you: your payment was successful.', tone: 'ok' },
  authorized: { heading: 'Payment authorised', message: 'Your payment is authorised. The amount is reserved and will be taken when your order is confirmed.', tone: 'ok' },
  in_review: { heading: 'Payment under review', message: 'Your payment is being reviewed. We will let you know the outcome; you do not need to pay again.', tone: 'info' },
  declined: { heading: 'Payment declined', message: 'Your payment was declined and no money was taken.', tone: 'bad' },
  failed: { heading: 'Payment failed', message: 'The payment could not be processed and no money was taken.', tone: 'bad' },
  cancelled: { heading: 'Payment cancelled', message: 'The payment was cancelled. No money was taken.', tone: 'bad' },
  expired: { heading: 'Payment expired', message: 'The payment was not completed in time. No money was taken.', tone: 'bad' },
  partially_refunded: { heading: 'Payment partly refunded', message: 'Part of this payment has been refunded.', tone: 'info' },
  refunded: { heading: 'Payment refunded', message: 'This payment has been refunded.', tone: 'info' },
  chargeback: { heading: 'Payment disputed', message: 'This payment is disputed with your bank. Please contact the shop.', tone: 'info' },
};

const NOT_STARTED: StatePage = {
  heading: 'Payment not completed',
  message: 'The payment was not completed. No money was taken.',
  tone: 'info',
};

function textOf(data: Record<string, unknown>): string | undefined {
  if (typeof data.resultText === 'string' && data.resultText !== '') return data.resultText;
  const raw = typeof data.resultInfo === 'string' ? data.resultInfo : typeof data.result_info === 'string' ? data.result_info : undefined;
  const info = splitCodeText(raw);
  return info !== null && info.text !== '' ? info.text : undefined;
}

/** Events read per page while looking back for the reason, and at most this many pages. */
const REASON_PAGE = 50;
const REASON_PAGES = 20;

/**
 * The gateway's reason for a declined or failed payment, when it gave one: the text kept on the
 * order with its result code (the pay answer's, or the refusal notification's in this kit's
 * words, see notification-facts.ts), for the shopper's result page or the shop's own order page.
 * A code that named a step ("3-D Secure authentication required") is no reason for the end; then,
 * and for an order stored without a code, the transition into the order's state is read back a
 * page at a time, and its own text is the reason. No other event is: a late, unconfirmed, refused
 * or forged notification's fields, or what the browser posted, never describe why it ended.
 */
export async function refusalReason(store: OrderStore, order: Order): Promise<string | undefined> {
  if (order.state !== 'declined' && order.state !== 'failed') return undefined;
  const code = order.data.resultCode;
  if (typeof code === 'string' && code !== '') return STEP_RESULT_CODES.has(code.slice(0, 4)) ? undefined : textOf(order.data)?.slice(0, 200);
  let beforeSeq: number | undefined;
  for (let read = 0; read < REASON_PAGES; read++) {
    const page = await store.listEvents(order.id, beforeSeq === undefined ? { limit: REASON_PAGE } : { beforeSeq, limit: REASON_PAGE });
    // Bounded again here: a store that ignores `page` answers the whole log every time.
    const bound = beforeSeq;
    const events = bound === undefined ? page : page.filter((e) => e.seq < bound);
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i];
      if (event?.type === 'transition' && event.toState === order.state) return textOf(event.data)?.slice(0, 200);
    }
    const oldest = events[0]?.seq;
    if (oldest === undefined || oldest <= 1) return undefined;
    beforeSeq = oldest;
  }
  return undefined;
}

export interface ResultPageOptions {
  /** The shopper's language (default English). */
  translator?: Translator;
  /** The shop's address, for "Back to the shop". */
  shopUrl?: string;
}

/** Locals of the result view for `order` (exported for the pay pages and tests). */
export function resultLocals(order: Order, reason?: string, options: ResultPageOptions = {}): Record<string, unknown> {
  // An order nobody tried to pay (back from the hosted page before paying) is not "confirming".
  const notStarted = order.state === 'created' && order.data.submittedAt === undefined && order.transactionId === null;
  const page = notStarted ? NOT_STARTED : PAGES[order.state];
  const { translator } = options;
  const text = translator?.text ?? ((s: string) => s);
  const lang = translator?.locale ?? 'en';
  const confirming = !notStarted && !isFinal(order.state);
  return {
    title: text(page.heading),
    tone: page.tone,
    heading: text(page.heading),
    message: text(page.message),
    reason,
    orderNo: order.orderNo,
    amount: formatMoney(order.amount, order.currency, lang),
    card: order.maskedCard === null ? undefined : formatCard(order.maskedCard),
    date: formatDate(order.createdAt, lang),
    // A payment still being confirmed is no dead end: say what happens next.
    next: confirming ? translator?.t('result.next') : undefined,
    shopUrl: options.shopUrl,
    refreshSeconds: confirming ? RESULT_REFRESH_SECONDS : undefined,
  };
}

/** Renders a message page (errors, forged links) with the result view, in the shopper's language. */
export function createMessagePage(shopUrl?: string): (req: Parameters<typeof sendPage>[0], res: Parameters<typeof sendPage>[1], status: number, heading: string, message: string) => void {
  const view: View = compileView('result');
  return (req, res, status, heading, message) => {
    const { text } = translatorOf(req, res);
    sendPage(req, res, view, { title: text(heading), heading: text(heading), message: text(message), tone: 'bad', shopUrl }, status);
  };
}

/** Adds the routes to `router` (a new one by default) and returns it. */
export function createResultRoutes(ctx: KitContext, router: Router = Router()): Router {
  const view = compileView('result');
  const message = createMessagePage(ctx.options.shopUrl);
  router.get('/result/:token', cspMiddleware(), async (req, res) => {
    const token = req.params.token;
    const claim = typeof token === 'string' ? ctx.tokens.verify(token, 'result') : null;
    const order = claim === null ? null : await ctx.store.get(claim.orderId);
    if (order === null) {
      message(req, res, 404, 'Link not valid', 'This payment link is not valid or has expired. Please return to the shop.');
      return;
    }
    const translator = useOrderLocale(req, res, order);
    sendPage(req, res, view, resultLocals(order, await refusalReason(ctx.store, order), { translator, shopUrl: ctx.options.shopUrl }));
  });
  return router;
}
