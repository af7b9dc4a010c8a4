/**
 * Direct card payment: authorise with 3-D Secure (`open3d`, default do3DS). A challenge sends
 * the shopper to issuer_url with an auto-submitting POST carrying return_url and notify_url.
 * The card data lives only in this request: it is never stored, logged or rendered back.
 */
import { applyAuthorise, handlePayError, type PayFlow } from './pay-flow.js';
import type { AuthoriseResult } from '../gateway/operations/authorise-result.js';
import type { SignedAuthorise } from '../gateway/operations/payments.js';

export async function payByCard(flow: PayFlow, request: SignedAuthorise, saveCard?: (result: AuthoriseResult) => Promise<void>): Promise<void> {
  const { ctx, order, pages, req, res } = flow;
  let issuerUrl: string | null;
  try {
    const result = await ctx.client.payments.sendAuthorise(request);
    // Stored before the answer is applied, so the card is there when the shop's onPaid hook runs.
    await saveCard?.(result);
    issuerUrl = await applyAuthorise(flow, result);
  } catch (error) {
    await handlePayError(flow, error);
    return;
  }
  if (issuerUrl === null) return;
  pages.redirectPost(req, res, {
    action: issuerUrl,
    fields: { return_url: ctx.urls.return(order.id), notify_url: ctx.urls.notify() },
    heading: 'Taking you to your bank…',
    message: 'Your bank needs to confirm this payment. If nothing happens, select Continue.',
  });
}
