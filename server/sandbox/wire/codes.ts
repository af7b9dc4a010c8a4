/**
 * The sandbox's own table of status values. The interface publishes only a few (order_status 1,
 * payment_status 3000/4100, result_info 0000:Success, refund_message V0000:OK, return_status 1);
 * the rest follow the table documented in docs/sandbox.md. Written here, not imported from the
 * client, so that the two readings of the interface stay independent.
 */

/** `order_status` of the authorise reply and of notifications. */
export const ORDER_STATUS = {
  declined: '0',
  approved: '1',
  authorized: '2',
  pending: '-1',
  inReview: '-2',
  requiresAction: '-3',
  failed: '-4',
  cancelled: '3',
} as const;

/** `payment_status` of query and refund-search replies; 3000 and 4100 are observed values. */
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

/** `result_info` as `<code>:<text>`; `0000:Success` is observed. */
export const RESULT_INFO = {
  success: '0000:Success',
  declined: '0005:Do not honor',
  insufficientFunds: '0051:Insufficient funds',
  expiredCard: '0054:Expired card',
  invalidToken: '0014:Invalid card token',
  processingError: '0096:System malfunction',
  pendingReview: '0100:Pending risk review',
  reviewRejected: '0101:Rejected by risk review',
  challengeRequired: '0200:3-D Secure authentication required',
  challengeFailed: '0201:3-D Secure authentication failed',
  issuerRedirect: '0300:Redirect to issuer',
  abandoned: '0301:Shopper abandoned the payment',
  cancelled: '0400:Cancelled',
} as const;

/** `refund_message`; `V0000:OK` is observed. */
export const REFUND_MESSAGE = {
  ok: 'V0000:OK',
  exceedsRemaining: 'V0001:Refund amount exceeds the amount remaining',
  notCaptured: 'V0002:Transaction is not captured',
  notFound: 'V0003:Transaction not found',
  currencyMismatch: 'V0004:Currency does not match the transaction',
  invalidAmount: 'V0005:Invalid refund amount',
} as const;

/** `return_status` / `return_message`: `1` / `OK` observed. */
export const RETURN_STATUS = { ok: '1', failed: '0' } as const;
export const RETURN_MESSAGE_OK = 'OK';
/** capture_status, cancel_status, review_status, refund_status, recurring_status, query_result. */
export const ELEMENT_STATUS = { ok: '1', failed: '0' } as const;

/** `code` of error bodies: I0013-I0015 are published, the rest are the sandbox's. */
export const ERROR_CODES = {
  invalidInput: 'I0001',
  duplicateOrder: 'I0002',
  badSignature: 'I0013',
  testAccountOnLive: 'I0014',
  liveAccountOnTest: 'I0015',
  ipNotRegistered: 'I0016',
  overLimit: 'I0017',
  notFound: 'I0404',
} as const;

/** `webhooks_type` of a notification. */
export const NOTIFICATION_TYPES = ['payment', 'review', 'refund', 'chargeback', 'dispute', 'capture', 'cancel', 'payout', 'subscription'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** Most order elements per request (interface "Limits"; updateOrders from the public notes). */
export const LIMITS = {
  capture: 50,
  cancel: 50,
  refund: 50,
  review: 100,
  retrievalTrans: 100,
  retrievalRefund: 100,
  updateOrders: 50,
} as const;
