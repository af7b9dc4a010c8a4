export * from './money.js';
export * from './items.js';
export * from './dates.js';
export * from './signing.js';
export * from './codes.js';
export * from './schemas/index.js';
export * from './xml.js';
export * from './wire.js';
export { backoffDelay, RETRIED_OPERATIONS, type CallOptions, type RetryPolicy } from './core.js';
export { createGatewayClient, type GatewayClient, type GatewayClientOptions } from './client.js';
export type { PayoutAmountUnit } from './operations/context.js';
export type { AuthoriseResult } from './operations/authorise-result.js';
export type { BatchItemResult } from './operations/batch-runner.js';
export type {
  BatchApi, BatchOrderInput, CancelOrderInput, CaptureOrderInput, RefundOrderInput, ReviewOrderInput,
} from './operations/batch.js';
export {
  DEDUPE_FIELDS, notificationDedupeKey, notificationOutcome, refundDedupeKey,
  type NotificationFact, type NotificationKind, type NotificationsApi,
} from './operations/notifications.js';
export type { OptimiseInput, OptimiseResult, RankedPaymentMethod } from './operations/optimise.js';
export {
  apmPaymentInputSchema, checkoutInputSchema, directPaymentInputSchema, lineItemSchema,
  type ApmPaymentInput, type CheckoutInput, type DirectPaymentInput,
} from './operations/payment-inputs.js';
export type { CheckoutForm, PaymentsApi } from './operations/payments.js';
export type { PayoutInput, PayoutResult, PayoutsApi } from './operations/payouts.js';
export type {
  QueriesApi, QueryOrder, QueryResult, RefundRecord, RefundSearchResult,
} from './operations/queries.js';
export type {
  CancelSubscriptionInput, CancelSubscriptionResult, SubscriptionsApi,
} from './operations/subscriptions.js';
export type { UpdateOrderInput } from './operations/update-orders.js';
export * from '../card-number.js';
