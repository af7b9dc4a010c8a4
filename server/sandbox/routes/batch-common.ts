/** What capture, cancel, review and refund share: the limit check, element lookup, envelope. */
import type { SandboxContext } from '../context.js';
import { SandboxHttpError, str } from '../http.js';
import type { SandboxAccount, SandboxTransaction } from '../types.js';
import { ERROR_CODES, PAYMENT_STATUS, RETURN_MESSAGE_OK, RETURN_STATUS } from '../wire/codes.js';

/** Over the limit: the whole request is refused (I0017) and nothing changes. */
export function assertWithinLimit(fields: Readonly<Record<string, unknown>>, arrayName: string, limit: number): void {
  const list = fields[arrayName];
  if (Array.isArray(list) && list.length > limit) {
    throw new SandboxHttpError(400, ERROR_CODES.overLimit, arrayName, `${arrayName} holds ${list.length} orders; at most ${limit} are allowed per request`);
  }
}

export interface ElementRef {
  transaction_id: string;
  order_no: string;
  currency: string;
}

/** The element's transaction, or the reason it cannot be used. */
export function lookUp(ctx: SandboxContext, account: SandboxAccount, element: ElementRef): SandboxTransaction | string {
  const tx = ctx.ledger.byTransactionId(account.merchantId, account.accountId, element.transaction_id);
  if (tx === undefined) return `Transaction ${element.transaction_id} not found`;
  if (tx.orderNo !== element.order_no) return `order_no ${element.order_no} does not match transaction ${element.transaction_id}`;
  if (tx.currency !== element.currency) return `currency ${element.currency} does not match the transaction (${tx.currency})`;
  return tx;
}

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  [PAYMENT_STATUS.pending]: 'pending',
  [PAYMENT_STATUS.requiresAction]: 'waiting for the shopper',
  [PAYMENT_STATUS.authorized]: 'authorised',
  [PAYMENT_STATUS.inReview]: 'held for risk review',
  [PAYMENT_STATUS.completed]: 'captured',
  [PAYMENT_STATUS.partiallyRefunded]: 'captured and partially refunded',
  [PAYMENT_STATUS.refunded]: 'refunded',
  [PAYMENT_STATUS.declined]: 'declined',
  [PAYMENT_STATUS.failed]: 'failed',
  [PAYMENT_STATUS.cancelled]: 'cancelled',
  [PAYMENT_STATUS.chargeback]: 'charged back',
  [PAYMENT_STATUS.expired]: 'expired',
};

export const describe = (tx: SandboxTransaction): string => DESCRIPTIONS[tx.paymentStatus] ?? `in status ${tx.paymentStatus}`;

export const CAPTURED_STATUSES: readonly string[] = [PAYMENT_STATUS.completed, PAYMENT_STATUS.partiallyRefunded, PAYMENT_STATUS.refunded, PAYMENT_STATUS.chargeback];

/** The reply envelope: echoes identity and the request's encryption_data. */
export function envelope(fields: Readonly<Record<string, unknown>>, arrayName: string, elements: unknown[]): Record<string, unknown> {
  return {
    merchant_id: str(fields, 'merchant_id'),
    account_id: str(fields, 'account_id'),
    return_status: RETURN_STATUS.ok,
    return_message: RETURN_MESSAGE_OK,
    encryption_data: str(fields, 'encryption_data'),
    [arrayName]: elements,
  };
}
