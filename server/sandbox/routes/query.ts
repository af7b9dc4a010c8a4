/**
 * POST /v1/retrievalTrans and /v1/retrievalRefund: form-encoded reads, answered only to
 * registered caller IPs. The query reply carries no encryption_data, as the published query
 * sample (option `echoQuerySignature` echoes the request's); the refund-search reply echoes it.
 * A query reply holding exactly one order carries antifraud_provider, fraud_check_result and
 * is3ds at the top level, as the published sample; with several orders each element has its own.
 */
import type { RequestInfo, SandboxContext } from '../context.js';
import { jsonReply, SandboxHttpError, str, type Reply } from '../http.js';
import type { SandboxRefund, SandboxTransaction } from '../types.js';
import { authenticate, validate } from '../validate.js';
import { ELEMENT_STATUS, ERROR_CODES, LIMITS, RETURN_MESSAGE_OK, RETURN_STATUS } from '../wire/codes.js';
import { decimalAmount, isoDay, timestamp14 } from '../wire/format.js';
import { queryRequest, refundSearchRequest } from '../wire/other-requests.js';

/** Only registered IPs are answered; the message names the IP to register. */
export function assertRegisteredIp(ctx: SandboxContext, req: RequestInfo): void {
  const ip = req.socket.remoteAddress ?? '';
  if (!ctx.options.queryAllowedIps.has(ip)) {
    throw new SandboxHttpError(403, ERROR_CODES.ipNotRegistered, 'ip', `caller IP ${ip} is not on this account's IP allowlist; add it (sandbox option queryAllowedIps) and retry`);
  }
}

const split = (list: string | undefined): string[] => (list === undefined ? [] : list.split(',').map((s) => s.trim()));

function queryElement(ctx: SandboxContext, tx: SandboxTransaction): Record<string, unknown> {
  const d = tx.details;
  const subscription = tx.recurringId === '' ? undefined : ctx.ledger.subscriptionRows.get(tx.recurringId);
  return {
    amount: decimalAmount(tx.amount, tx.currency),
    currency: tx.currency,
    delivery_information: {
      delivery_address: d.delivery_address ?? '',
      delivery_city: d.delivery_city ?? '',
      delivery_country: d.delivery_country ?? '',
      delivery_firstname: d.delivery_firstname ?? '',
      delivery_lastname: d.delivery_lastname ?? '',
      delivery_postal_code: d.delivery_postal_code ?? '',
      delivery_state: d.delivery_state ?? '',
    },
    antifraud_provider: 'sandbox',
    fraud_check_result: tx.riskReasons.map((r) => ({ check_items: r.name, status: r.status })),
    is3ds: tx.is3ds ? '1' : '0',
    order_no: tx.orderNo,
    payment_status: tx.paymentStatus,
    query_result: ELEMENT_STATUS.ok,
    reference_no: tx.transactionId,
    shopper_email: d.shopper_email ?? '',
    shopper_phone: d.shopper_phone ?? '',
    subscription_result: {
      contract_name: subscription?.contractName ?? '',
      recurring_deduction_period: subscription?.period ?? '',
      recurring_deduction_time: subscription ? isoDay(new Date(tx.deductionAt ?? subscription.nextDeductionAt)) : '',
      recurring_id: subscription?.recurringId ?? '',
      recurring_status: subscription === undefined ? '' : subscription.status === 'active' ? ELEMENT_STATUS.ok : ELEMENT_STATUS.failed,
    },
    transaction_date: timestamp14(new Date(tx.createdAt)),
    transaction_id: tx.transactionId,
    website: d.website ?? '',
  };
}

function envelope(fields: Readonly<Record<string, unknown>>, name: string, list: unknown[], echo = true): Record<string, unknown> {
  const reply: Record<string, unknown> = {
    merchant_id: str(fields, 'merchant_id'),
    account_id: str(fields, 'account_id'),
    return_status: RETURN_STATUS.ok,
    return_message: RETURN_MESSAGE_OK,
  };
  if (echo) reply.encryption_data = str(fields, 'encryption_data');
  reply[name] = list;
  return reply;
}

/** One order: its fraud fields move to the top level, as in the published query sample. */
function queryReply(fields: Readonly<Record<string, unknown>>, elements: Record<string, unknown>[], echo: boolean): Record<string, unknown> {
  const only = elements.length === 1 ? elements[0] : undefined;
  if (only === undefined) return envelope(fields, 'orders_list', elements, echo);
  const { antifraud_provider, fraud_check_result, is3ds, ...rest } = only;
  return { ...envelope(fields, 'orders_list', [rest], echo), antifraud_provider, fraud_check_result, is3ds };
}

/** Selected by `orders` (order_no) and/or `trades` (transaction_id); neither: the latest 100. */
export function handleQuery(ctx: SandboxContext, req: RequestInfo, fields: Record<string, unknown>): Reply {
  assertRegisteredIp(ctx, req);
  const account = authenticate(ctx, 'retrievalTrans', fields);
  const request = validate(queryRequest, fields);
  const orders = [...new Set(split(request.orders))];
  const trades = [...new Set(split(request.trades))];
  // Looked up by index: a query costs the same however many transactions the ledger holds.
  const selected =
    orders.length === 0 && trades.length === 0
      ? ctx.ledger.latestAccountTransactions(account.merchantId, account.accountId, LIMITS.retrievalTrans)
      : ctx.ledger.accountTransactionsMatching(account.merchantId, account.accountId, orders, trades);
  return jsonReply(queryReply(fields, selected.map((tx) => queryElement(ctx, tx)), ctx.options.echoQuerySignature));
}

function refundElement(refund: SandboxRefund): Record<string, unknown> {
  return {
    transaction_id: refund.transactionId,
    order_no: refund.orderNo,
    amount: decimalAmount(refund.amount, refund.currency),
    refund_status: refund.refundStatus,
    payment_status: refund.paymentStatus,
    refund_amount: decimalAmount(refund.refundAmount, refund.currency),
    refund_reference: refund.refundReference,
    currency: refund.currency,
    refund_reason: refund.refundReason,
    refund_reference_id: refund.refundReferenceId,
    refund_date: refund.refundDate,
    refund_processing_date: refund.refundProcessingDate,
  };
}

/**
 * Selected by `refund_orders` (order_no or transaction_id), `refund_references`
 * (refund_reference) and `merchant_refunds` (refund_reference_id); none: the latest 100.
 */
export function handleRefundSearch(ctx: SandboxContext, req: RequestInfo, fields: Record<string, unknown>): Reply {
  assertRegisteredIp(ctx, req);
  const account = authenticate(ctx, 'retrievalRefund', fields);
  const request = validate(refundSearchRequest, fields);
  const all = ctx.ledger.accountRefunds(account.merchantId, account.accountId);
  const orders = new Set(split(request.refund_orders));
  const references = new Set(split(request.refund_references));
  const ids = new Set(split(request.merchant_refunds));
  const selected =
    orders.size + references.size + ids.size === 0
      ? all.slice(-LIMITS.retrievalRefund)
      : all.filter((r) => orders.has(r.orderNo) || orders.has(r.transactionId) || references.has(r.refundReference) || ids.has(r.refundReferenceId));
  return jsonReply(envelope(fields, 'refund_orders', selected.map(refundElement)));
}
