/**
 * Sends one submitted payment (the order is already `pending`) and answers the shopper. The
 * three methods differ only in where the browser goes next:
 * - hosted (the default): the browser posts the signed request to `{baseUrl}/v1/checkout` and
 *   the gateway's pages take the card, so card data never touches the shop; return, notify or
 *   the sweeper settle the order;
 * - card: authorise with 3-D Secure; a challenge sends the shopper to the issuer URL with an
 *   auto-submitting POST (the fields the client prepared). The card data lives only in the
 *   signed request: it is never stored, logged or rendered back;
 * - APM: authorise; the answer's issuer URL is where the shopper pays, reached with a 303 (the
 *   sandbox's issuer page takes GET and POST alike). The pay page's form-action lists the
 *   gateway's origin because browsers check form-action against the redirect after a POST.
 */
import type { Request, Response } from 'express';
import type { AuthoriseResult } from '../../gateway/operations/authorise-result.js';
import type { CheckoutForm, PreparedPayment } from '../../gateway/operations/payments.js';
import type { Order } from '../../orders/types.js';
import type { KitContext } from '../context.js';
import { seeOtherNoStore } from '../../http/no-store.js';
import { logRefusal } from '../refusal-log.js';
import type { PayPages } from '../render-pages.js';
import { merged } from '../../objects.js';
import { applyPayFact, classifyPayError } from './submit.js';

export interface PayFlow {
  ctx: KitContext;
  req: Request;
  res: Response;
  /** Submitted, so `pending`. */
  order: Order;
  pages: PayPages;
}

/** An issuer URL the browser may be sent to: https, or the gateway's own origin (sandbox). */
export function acceptableIssuerUrl(ctx: KitContext, url: string): boolean {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'https:') return true;
    return parsed.protocol === 'http:' && parsed.origin === new URL(ctx.options.gateway.baseUrl).origin;
  } catch {
    return false;
  }
}

export function seeResult(flow: PayFlow): void {
  seeOtherNoStore(flow.res, flow.ctx.urls.result(flow.order.id));
}

function resultData(result: AuthoriseResult): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (result.resultCode !== null) data.resultCode = result.resultCode;
  if (result.resultText !== null) data.resultText = result.resultText;
  if (result.threedsResult !== null) data.threedsResult = result.threedsResult;
  if (result.recurringId !== null) data.recurringId = result.recurringId;
  if (result.riskAction !== null) data.riskAction = result.riskAction;
  return data;
}

/**
 * Applies an authorise answer. Returns the issuer URL when the shopper must go there next,
 * or null after answering 303 to the result page.
 */
export async function applyAuthorise(flow: PayFlow, result: AuthoriseResult): Promise<string | null> {
  const { ctx, order } = flow;
  const details = resultData(result);
  const base = {
    transactionId: result.transactionId,
    amount: result.amount,
    currency: result.currency,
    maskedCard: result.maskedCard,
    data: details,
    orderData: details,
  };
  if (result.issuerUrl !== null && result.outcome === 'requires_action') {
    if (!acceptableIssuerUrl(ctx, result.issuerUrl)) {
      const attention = 'The gateway sent an issuer URL that is not https: the shopper was not redirected.';
      await applyPayFact(ctx, order, merged(base, { outcome: 'pending' as const, attention }));
      seeResult(flow);
      return null;
    }
    const applied = await applyPayFact(ctx, order, merged(base, { outcome: 'requires_action' as const }));
    if (applied.order?.state === 'requires_action') return result.issuerUrl;
    seeResult(flow);
    return null;
  }
  const outcome = result.outcome === 'unknown' || result.outcome === 'requires_action' ? 'pending' : result.outcome;
  await applyPayFact(ctx, order, merged(base, { outcome }));
  seeResult(flow);
  return null;
}

/** Handles an error thrown while the gateway was being asked; always answers the shopper. */
export async function handlePayError(flow: PayFlow, error: unknown): Promise<void> {
  const { ctx, order, pages, req, res } = flow;
  const failure = classifyPayError(error);
  const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown';
  if (failure.kind === 'refused') {
    logRefusal(ctx.options, code, { orderNo: order.orderNo, gatewayCode: failure.code, gatewayMessage: failure.text });
    ctx.logger.warn({ orderId: order.id, orderNo: order.orderNo, code, gatewayCode: failure.code }, 'Payment refused by the gateway');
    const details = { resultCode: failure.code, resultText: failure.text };
    await applyPayFact(ctx, order, { outcome: 'failed', data: details, orderData: details });
    pages.error(req, res, 502, {
      heading: 'The payment could not be started',
      message: 'The payment provider refused the payment request. No money was taken. Please contact the shop.',
      link: { href: ctx.urls.result(order.id), text: 'See the payment status' },
    });
    return;
  }
  ctx.logger.warn({ orderId: order.id, orderNo: order.orderNo, code, error }, 'Payment outcome unknown; it will be settled by query');
  const applied = await applyPayFact(ctx, order, { outcome: 'pending', data: { error: code }, ...(failure.attention === null ? {} : { attention: failure.attention }) });
  if (applied.event === undefined && applied.order !== null) {
    // Already pending since the submission, so the fact stored nothing: keep why the answer is missing.
    const event = { type: 'pay_error', source: 'pay' as const, actor: 'shopper', fromState: applied.order.state, data: { error: code } };
    await ctx.engine.record(order.id, event).catch((recordError: unknown) => {
      ctx.logger.warn({ orderId: order.id, err: recordError }, 'Could not record the pay error');
    });
  }
  seeResult(flow);
}

/** The hosted page: an auto-submitting form to the gateway, already signed. */
function showHostedPage(flow: PayFlow, form: CheckoutForm): void {
  const { ctx, order, pages, req, res } = flow;
  const shown = pages.redirectPost(req, res, {
    action: form.action,
    fields: form.fields,
    heading: 'Taking you to the secure payment page…',
    message: 'You will enter your card details on the payment provider\'s page. If nothing happens, select Continue.',
  });
  if (!shown) {
    ctx.logger.error({ orderId: order.id, orderNo: order.orderNo }, 'The hosted page address is not an http(s) URL');
    seeOtherNoStore(res, ctx.urls.result(order.id));
  }
}

/**
 * Sends the payment prepared (validated and signed) before the order was submitted; always
 * answers. `saveCard` stores the card's token from the answer before the answer is applied, so
 * the saved card exists when the shop's onPaid hook runs.
 */
export async function sendPayment(flow: PayFlow, prepared: PreparedPayment, saveCard?: (result: AuthoriseResult) => Promise<void>): Promise<void> {
  if (prepared.kind === 'hosted') {
    showHostedPage(flow, prepared.form);
    return;
  }
  let issuerUrl: string | null;
  try {
    const result = await flow.ctx.client.payments.sendAuthorise(prepared.authorise);
    await saveCard?.(result);
    issuerUrl = await applyAuthorise(flow, result);
  } catch (error) {
    await handlePayError(flow, error);
    return;
  }
  if (issuerUrl === null) return;
  if (prepared.kind === 'apm') {
    seeOtherNoStore(flow.res, issuerUrl);
    return;
  }
  flow.pages.redirectPost(flow.req, flow.res, {
    action: issuerUrl,
    fields: prepared.challengeFields,
    heading: 'Taking you to your bank…',
    message: 'Your bank needs to confirm this payment. If nothing happens, select Continue.',
  });
}
