/**
 * Alternative payment method: authorise with `payment_method`, return_url and notify_url; the
 * answer's issuer_url is where the shopper pays. Answered with 303 (the sandbox's issuer page
 * takes GET and POST alike); the pay page's form-action lists the gateway's origin because
 * browsers check form-action against the redirect that follows a form POST.
 */
import type { SignedAuthorise } from '../gateway/operations/payments.js';
import { applyAuthorise, handlePayError, type PayFlow } from './pay-flow.js';
import { seeOtherNoStore } from '../http/no-store.js';

export async function payByApm(flow: PayFlow, request: SignedAuthorise): Promise<void> {
  let issuerUrl: string | null;
  try {
    const result = await flow.ctx.client.payments.sendAuthorise(request);
    issuerUrl = await applyAuthorise(flow, result);
  } catch (error) {
    await handlePayError(flow, error);
    return;
  }
  if (issuerUrl !== null) seeOtherNoStore(flow.res, issuerUrl);
}
