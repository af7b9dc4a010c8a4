/**
 * Status codes. The interface publishes only a few observed values (order_status 1,
 * payment_status 3000/4100, result_info 0000:Success, refund_message V0000:OK, return_status 1);
 * the rest of this table is the project's documented decision (gateway-notes §8). The sandbox
 * emits exactly these and the kit interprets exactly these, so both read this one module.
 */

/** `order_status` in the authorise response and in notifications. */
export const ORDER_STATUS = {
  declined: '0',
  /** Approved. A captured sale in auto-capture mode, an authorisation in manual mode. */
  approved: '1',
  /** Approved and authorised only (manual capture); capture or cancel decides. */
  authorized: '2',
  /** The gateway is still working on it: settle by query. */
  pending: '-1',
  /** Held for the merchant's risk review (the review operation decides). */
  inReview: '-2',
  /** Shopper must act at `issuer_url` (3-D Secure challenge or APM issuer page). */
  requiresAction: '-3',
  /** Processing error: no money moved. */
  failed: '-4',
  /** Cancelled (voided) before capture, or abandoned at the issuer. */
  cancelled: '3',
} as const;
export type OrderStatusCode = (typeof ORDER_STATUS)[keyof typeof ORDER_STATUS];

/** `payment_status` in query and refund-search responses. 3000 and 4100 are observed values. */
export const PAYMENT_STATUS = {
  pending: '1000',
  requiresAction: '1100',
  authorized: '2000',
  inReview: '2100',
  completed: '3000',
  partiallyRefunded: '3100',
  refunded: '4100',
  declined: '5000',
  failed: '5100',
  cancelled: '6000',
  chargeback: '7000',
  expired: '8000',
} as const;
export type PaymentStatusCode = (typeof PAYMENT_STATUS)[keyof typeof PAYMENT_STATUS];

/** `<code>:<text>` values of `result_info`. `0000:Success` is observed. */
export const RESULT_INFO = {
  success: '0000:Success',
  declined: '0005:Do not honor',
  insufficientFunds: '0051:Insufficient funds',
  expiredCard: '0054:Expired card',
  processingError: '0096:System malfunction',
  pendingReview: '0100:Pending risk review',
  challengeRequired: '0200:3-D Secure authentication required',
  challengeFailed: '0201:3-D Secure authentication failed',
  issuerRedirect: '0300:Redirect to issuer',
  abandoned: '0301:Shopper abandoned the payment',
  reviewRejected: '0101:Rejected by risk review',
  cancelled: '0400:Cancelled',
} as const;

/** The text this table gives `code`, e.g. `Insufficient funds` for `0051`; undefined for a code it does not list. */
export function resultTextOf(code: string): string | undefined {
  for (const info of Object.values(RESULT_INFO)) if (info.startsWith(`${code}:`)) return info.slice(code.length + 1);
  return undefined;
}

/**
 * Result codes that name the payment's next step (review, challenge, issuer page), not how it
 * ended: a decline learned later from a query, which carries no code, must not be put down to them.
 */
export const STEP_RESULT_CODES: ReadonlySet<string> = new Set([RESULT_INFO.pendingReview, RESULT_INFO.challengeRequired, RESULT_INFO.issuerRedirect].map((info) => info.slice(0, 4)));

/** `refund_message` values. `V0000:OK` is observed. */
export const REFUND_MESSAGE = {
  ok: 'V0000:OK',
  exceedsRemaining: 'V0001:Refund amount exceeds the amount remaining',
  notCaptured: 'V0002:Transaction is not captured',
  notFound: 'V0003:Transaction not found',
  currencyMismatch: 'V0004:Currency does not match the transaction',
  invalidAmount: 'V0005:Invalid refund amount',
} as const;

export const RETURN_STATUS = { ok: '1', failed: '0' } as const;
export const RETURN_MESSAGE_OK = 'OK';
/** capture_status, cancel_status, review_status, refund_status, recurring_status, query_result. */
export const ELEMENT_STATUS = { ok: '1', failed: '0' } as const;

/** Named error codes from the public documentation (error bodies carry code, source, message). */
export const GATEWAY_ERROR_CODES = {
  badSignature: 'I0013',
  testAccountOnLive: 'I0014',
  liveAccountOnTest: 'I0015',
  invalidInput: 'I0001',
  notFound: 'I0404',
  duplicateOrder: 'I0002',
  ipNotRegistered: 'I0016',
  overLimit: 'I0017',
} as const;

/** `webhooks_type` of a notification: which kind of fact it carries. */
export const NOTIFICATION_TYPES = [
  'payment',
  'review',
  'refund',
  'chargeback',
  'dispute',
  'capture',
  'cancel',
  'payout',
  'subscription',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** The kit's reading of a payment's state, whichever field it came from. */
export type PaymentOutcome =
  | 'approved'
  | 'authorized'
  | 'pending'
  | 'in_review'
  | 'requires_action'
  | 'declined'
  | 'failed'
  | 'cancelled'
  | 'partially_refunded'
  | 'refunded'
  | 'chargeback'
  | 'expired'
  | 'unknown';

const ORDER_STATUS_OUTCOME: Record<string, PaymentOutcome> = {
  [ORDER_STATUS.declined]: 'declined',
  [ORDER_STATUS.approved]: 'approved',
  [ORDER_STATUS.authorized]: 'authorized',
  [ORDER_STATUS.pending]: 'pending',
  [ORDER_STATUS.inReview]: 'in_review',
  [ORDER_STATUS.requiresAction]: 'requires_action',
  [ORDER_STATUS.failed]: 'failed',
  [ORDER_STATUS.cancelled]: 'cancelled',
};

const PAYMENT_STATUS_OUTCOME: Record<string, PaymentOutcome> = {
  [PAYMENT_STATUS.pending]: 'pending',
  [PAYMENT_STATUS.requiresAction]: 'requires_action',
  [PAYMENT_STATUS.authorized]: 'authorized',
  [PAYMENT_STATUS.inReview]: 'in_review',
  [PAYMENT_STATUS.completed]: 'approved',
  [PAYMENT_STATUS.partiallyRefunded]: 'partially_refunded',
  [PAYMENT_STATUS.refunded]: 'refunded',
  [PAYMENT_STATUS.declined]: 'declined',
  [PAYMENT_STATUS.failed]: 'failed',
  [PAYMENT_STATUS.cancelled]: 'cancelled',
  [PAYMENT_STATUS.chargeback]: 'chargeback',
  [PAYMENT_STATUS.expired]: 'expired',
};

export function outcomeOfOrderStatus(code: string | undefined | null): PaymentOutcome {
  return (code != null && ORDER_STATUS_OUTCOME[code]) || 'unknown';
}

export function outcomeOfPaymentStatus(code: string | undefined | null): PaymentOutcome {
  return (code != null && PAYMENT_STATUS_OUTCOME[code]) || 'unknown';
}

/** Splits `<code>:<text>` (result_info, refund_message); text may itself contain colons. */
export function splitCodeText(value: string | undefined | null): { code: string; text: string } | null {
  if (value == null || value === '') return null;
  const at = value.indexOf(':');
  return at < 0 ? { code: value, text: '' } : { code: value.slice(0, at), text: value.slice(at + 1) };
}
