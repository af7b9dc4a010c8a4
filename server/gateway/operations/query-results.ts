/**
 * Query and refund-search reply elements as typed records: amounts in minor units, dates as
 * Date, status codes read through codes.ts, the wire element kept as `raw`.
 */
import { ProtocolError } from '../../errors.js';
import { outcomeOfPaymentStatus, type PaymentOutcome } from '../codes.js';
import type { ErrorContext } from '../core.js';
import { parseGatewayTimestamp } from '../dates.js';
import type { QueryOrderElement, QueryResponse, RefundRecordElement } from '../schemas/queries.js';
import { orNull, replyMinor } from './context.js';

export interface QueryOrder {
  raw: QueryOrderElement;
  orderNo: string;
  transactionId: string | null;
  /** Minor units. */
  amount: number;
  currency: string;
  paymentStatus: string | null;
  outcome: PaymentOutcome;
  queryResult: string | null;
  is3ds: string | null;
  referenceNo: string | null;
  transactionDate: Date | null;
  website: string | null;
  shopperEmail: string | null;
  shopperPhone: string | null;
  antifraudProvider: string | null;
  fraudCheckResult: { checkItems: string | null; status: string | null }[];
  subscription: {
    contractName: string | null;
    recurringId: string | null;
    recurringStatus: string | null;
    recurringDeductionPeriod: string | null;
    recurringDeductionTime: string | null;
  } | null;
}

export interface QueryResult {
  returnStatus: string;
  returnMessage: string | null;
  orders: QueryOrder[];
}

export interface RefundRecord {
  raw: RefundRecordElement;
  transactionId: string | null;
  orderNo: string | null;
  currency: string | null;
  /** Original amount, minor units. */
  amount: number | null;
  refundAmount: number | null;
  refundStatus: string | null;
  paymentStatus: string | null;
  outcome: PaymentOutcome;
  refundReference: string | null;
  refundReferenceId: string | null;
  refundReason: string | null;
  refundDate: Date | null;
  refundProcessingDate: Date | null;
}

export interface RefundSearchResult {
  returnStatus: string;
  returnMessage: string | null;
  refunds: RefundRecord[];
}

export function replyDate(value: string | undefined, field: string, ectx: ErrorContext): Date | null {
  const text = orNull(value);
  if (text === null) return null;
  try {
    return parseGatewayTimestamp(text, field);
  } catch (cause) {
    throw new ProtocolError('ERR_PROTOCOL_MALFORMED', `${ectx.operation}: ${field} in the reply is not a real date`, { cause });
  }
}

/** The fraud fields a reply may carry beside orders_list instead of inside each order. */
export type QueryTopLevel = Pick<QueryResponse, 'antifraud_provider' | 'fraud_check_result' | 'is3ds'>;

export function toQueryOrder(o: QueryOrderElement, ectx: ErrorContext, top: QueryTopLevel = {}): QueryOrder {
  const sub = o.subscription_result;
  const fraudChecks = o.fraud_check_result ?? top.fraud_check_result ?? [];
  return {
    raw: o,
    orderNo: o.order_no,
    transactionId: orNull(o.transaction_id),
    amount: replyMinor(o.amount, o.currency, 'orders_list.amount', ectx),
    currency: o.currency,
    paymentStatus: orNull(o.payment_status),
    outcome: outcomeOfPaymentStatus(o.payment_status),
    queryResult: orNull(o.query_result),
    is3ds: orNull(o.is3ds) ?? orNull(top.is3ds),
    referenceNo: orNull(o.reference_no),
    transactionDate: replyDate(o.transaction_date, 'transaction_date', ectx),
    website: orNull(o.website),
    shopperEmail: orNull(o.shopper_email),
    shopperPhone: orNull(o.shopper_phone),
    antifraudProvider: orNull(o.antifraud_provider) ?? orNull(top.antifraud_provider),
    fraudCheckResult: fraudChecks.map((f) => ({ checkItems: orNull(f.check_items), status: orNull(f.status) })),
    subscription:
      sub === undefined
        ? null
        : {
            contractName: orNull(sub.contract_name),
            recurringId: orNull(sub.recurring_id),
            recurringStatus: orNull(sub.recurring_status),
            recurringDeductionPeriod: orNull(sub.recurring_deduction_period),
            recurringDeductionTime: orNull(sub.recurring_deduction_time),
          },
  };
}

export function toRefundRecord(r: RefundRecordElement, ectx: ErrorContext): RefundRecord {
  const currency = orNull(r.currency);
  const minor = (value: string | undefined, field: string): number | null => {
    const text = orNull(value);
    return text === null || currency === null ? null : replyMinor(text, currency, field, ectx);
  };
  return {
    raw: r,
    transactionId: orNull(r.transaction_id),
    orderNo: orNull(r.order_no),
    currency,
    amount: minor(r.amount, 'refund_orders.amount'),
    refundAmount: minor(r.refund_amount, 'refund_orders.refund_amount'),
    refundStatus: orNull(r.refund_status),
    paymentStatus: orNull(r.payment_status),
    outcome: outcomeOfPaymentStatus(r.payment_status),
    refundReference: orNull(r.refund_reference),
    refundReferenceId: orNull(r.refund_reference_id),
    refundReason: orNull(r.refund_reason),
    refundDate: replyDate(r.refund_date, 'refund_date', ectx),
    refundProcessingDate: replyDate(r.refund_processing_date, 'refund_processing_date', ectx),
  };
}
