/**
 * POST /v1/cancelsubscription (gateway-notes §7): stops a subscription's schedule. Every
 * published sample of this operation is `application/json` (or XML), so those are what it takes;
 * a body labelled as a form is refused, unlike the operations of gateway-notes §3.
 */
import type { SandboxContext } from '../context.js';
import { badInput, jsonReply, type Reply } from '../http.js';
import { notify } from '../payments.js';
import { authenticate, validate } from '../validate.js';
import { ELEMENT_STATUS, RETURN_MESSAGE_OK, RETURN_STATUS } from '../wire/codes.js';
import { cancelSubscriptionRequest } from '../wire/other-requests.js';

export function handleCancelSubscription(ctx: SandboxContext, fields: Record<string, unknown>, contentType = 'application/json'): Reply {
  if (!/^(application\/json|application\/xml|text\/xml)\b/i.test(contentType)) {
    throw badInput('content-type', `cancelsubscription takes an application/json (or XML) body, as the published samples send it; got "${contentType.slice(0, 60)}"`);
  }
  const account = authenticate(ctx, 'cancelsubscription', fields);
  const request = validate(cancelSubscriptionRequest, fields);
  const subscription = ctx.ledger.subscriptionRows.get(request.recurring_id);
  let error = '';
  if (subscription?.merchantId !== account.merchantId || subscription.accountId !== account.accountId) error = `Subscription ${request.recurring_id} not found`;
  else if (subscription.status === 'cancelled') error = 'Subscription is already cancelled';
  else if (request.contract_name !== undefined && request.contract_name !== '' && request.contract_name !== subscription.contractName) {
    error = 'contract_name does not match the subscription';
  }
  if (error === '' && subscription !== undefined) {
    const cancelled = { ...subscription, status: 'cancelled' as const, cancelledAt: new Date().toISOString() };
    ctx.ledger.subscriptionRows.put(cancelled.recurringId, cancelled);
    const tx = ctx.ledger.tx.get(subscription.transactionId);
    if (tx !== undefined) notify(ctx, tx, 'subscription');
  }
  return jsonReply({
    merchant_id: request.merchant_id,
    account_id: request.account_id,
    recurring_id: request.recurring_id,
    contract_name: request.contract_name ?? subscription?.contractName ?? '',
    encryption_data: request.encryption_data,
    cancel_status: error === '' ? ELEMENT_STATUS.ok : ELEMENT_STATUS.failed,
    error_message: error,
    return_status: RETURN_STATUS.ok,
    return_message: RETURN_MESSAGE_OK,
  });
}
