/**
 * POST /v1/payout: the whole request tree is validated; the reply echoes it and adds amounts,
 * fee, references and status COMPLETED. `payment_amount` and `source_amount` are strings of
 * digits (interface "Payout request"), read in the unit of the `payoutAmountUnit` option; the
 * reply's number fields use the same unit. A repeated request_id gets the stored reply byte for
 * byte and pays nothing again.
 */
import type { SandboxContext } from '../context.js';
import type { Reply } from '../http.js';
import { newPayerId, newShortReference, newTransactionId } from '../ids.js';
import { accountKey } from '../ledger.js';
import { signResult } from '../payments.js';
import type { SandboxAccount, SandboxPayout } from '../types.js';
import { badInput } from '../http.js';
import { authenticate, validate } from '../validate.js';
import { ORDER_STATUS, PAYMENT_STATUS, RESULT_INFO } from '../wire/codes.js';
import { decimalAmount, exponentOf, isoWithOffset, payoutNumber, readPayoutAmount, type PayoutAmountUnit } from '../wire/format.js';
import { payoutRequest, type PayoutRequest } from '../wire/other-requests.js';

/** The sandbox's fee: 1 % of the payment, at least one major unit of the currency. */
export function payoutFee(amount: number, currency: string): number {
  return Math.max(Math.round(amount / 100), 10 ** exponentOf(currency));
}

/** A digit-string payout amount in minor units, or HTTP 400 naming the field. */
function payoutMinor(value: string, currency: string, unit: PayoutAmountUnit, field: string): number {
  const read = readPayoutAmount(value, currency, unit);
  if (typeof read === 'string') throw badInput(field, `${field} ${read}`);
  return read;
}

function buildReply(request: PayoutRequest, amount: number, unit: PayoutAmountUnit, transactionId: string, now: Date): Record<string, unknown> {
  const currency = request.payment_currency;
  const asNumber = (minor: number, cur: string): number => payoutNumber(minor, cur, unit);
  const fee = payoutFee(amount, currency);
  const payerPays = request.fee_paid_by === 'BENEFICIARY' ? amount : amount + fee;
  const beneficiaryReceives = request.fee_paid_by === 'BENEFICIARY' ? Math.max(0, amount - fee) : amount;
  const bank = request.beneficiary?.bank_details;
  const beneficiary = request.beneficiary === undefined
    ? undefined
    : { ...request.beneficiary, ...(bank === undefined ? {} : { bank_details: { ...bank, local_clearing_system: request.payment_method === 'SWIFT' ? 'SWIFT' : 'LOCAL' } }) };
  const at = isoWithOffset(now);
  return {
    ...request,
    beneficiary,
    amount_beneficiary_receives: asNumber(beneficiaryReceives, currency),
    amount_payer_pays: asNumber(payerPays, currency),
    fee_amount: asNumber(fee, currency),
    fee_currency: currency,
    created_at: at,
    last_updated_at: at,
    failure_reason: '',
    failure_type: '',
    payer_id: newPayerId(),
    transaction_id: transactionId,
    short_reference_id: newShortReference(now),
    status: 'COMPLETED',
  };
}

function notifyPayout(ctx: SandboxContext, payout: SandboxPayout, request: PayoutRequest, amount: number): void {
  const fields: Record<string, string> = {
    merchant_id: payout.merchantId,
    account_id: payout.accountId,
    order_no: request.reference ?? payout.requestId,
    transaction_id: payout.transactionId,
    // Notifications carry acquiring-style decimal amounts, whatever the payout request's unit.
    amount: decimalAmount(amount, payout.paymentCurrency),
    currency: payout.paymentCurrency,
    order_status: ORDER_STATUS.approved,
    payment_status: PAYMENT_STATUS.completed,
    result_info: RESULT_INFO.success,
    webhooks_type: 'payout',
    card: '',
  };
  ctx.notifier.enqueue({
    merchantId: payout.merchantId,
    accountId: payout.accountId,
    transactionId: payout.transactionId,
    orderNo: fields.order_no ?? '',
    webhooksType: 'payout',
    url: payout.notifyUrl,
    fields: { ...fields, encryption_data: signResult(ctx, fields) },
  });
}

const payoutKey = (account: SandboxAccount, requestId: string): string => `${accountKey(account.merchantId, account.accountId)}/${requestId}`;

export function handlePayout(ctx: SandboxContext, fields: Record<string, unknown>): Reply {
  const account = authenticate(ctx, 'payout', fields);
  const request = validate(payoutRequest, fields);
  const unit = ctx.options.payoutAmountUnit;
  const amount = payoutMinor(request.payment_amount, request.payment_currency, unit, 'payment_amount');
  if (request.source_amount !== undefined) payoutMinor(request.source_amount, request.source_currency ?? request.payment_currency, unit, 'source_amount');
  const reply = (body: string): Reply => ({ status: 200, contentType: 'application/json; charset=utf-8', body });
  const existing = ctx.ledger.payoutRows.get(payoutKey(account, request.request_id));
  if (existing !== undefined) return reply(existing.reply);
  const now = new Date();
  const transactionId = newTransactionId(now);
  const replyObject = buildReply(request, amount, unit, transactionId, now);
  const body = JSON.stringify(replyObject);
  const payout: SandboxPayout = {
    requestId: request.request_id,
    merchantId: account.merchantId,
    accountId: account.accountId,
    transactionId,
    shortReferenceId: String(replyObject.short_reference_id),
    status: 'COMPLETED',
    paymentAmount: request.payment_amount,
    paymentCurrency: request.payment_currency,
    notifyUrl: request.notify_url ?? '',
    reply: body,
    createdAt: now.toISOString(),
  };
  ctx.ledger.payoutRows.put(payoutKey(account, request.request_id), payout);
  notifyPayout(ctx, payout, request, amount);
  return reply(body);
}
