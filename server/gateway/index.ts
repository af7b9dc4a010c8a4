// `acquiring-checkout-kit/gateway`: the typed client and the wire vocabulary for code that sends or
// receives the gateway's messages itself (schemas of each message, signing, money, codes, XML).
// Encoders, field fragments and the client's inner helpers stay inside.
export { createGatewayClient, type GatewayClient, type GatewayClientOptions } from './client.js';
export type { CallOptions, RetryPolicy } from './core.js';
export type { GatewayCallObserver, GatewayCallOutcome } from './observed-call.js';
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
export type { ApmPaymentInput, CheckoutInput, DirectPaymentInput } from './operations/payment-inputs.js';
export type { CheckoutForm, PaymentsApi, PreparedPayment, SignedAuthorise } from './operations/payments.js';
export type { GatewayAccountOptions } from './client-options.js';
export type {
  AmountParts, MethodsQuery, PaymentAddress, PaymentDevice, PaymentMethodChoice, PaymentRequest, PaymentShopper, SubscriptionPlan,
} from './payment-request.js';
export type { PayoutInput, PayoutResult, PayoutsApi } from './operations/payouts.js';
export type { QueriesApi } from './operations/queries.js';
export type { QueryOrder, QueryResult, RefundRecord, RefundSearchResult } from './operations/query-results.js';
export type { CancelSubscriptionInput, CancelSubscriptionResult, SubscriptionsApi } from './operations/subscriptions.js';
export type { UpdateOrderInput } from './operations/update-orders.js';

export {
  MAX_MINOR_UNITS, currencyExponent, isCurrencyCode, moneyText, parseWireAmount, toWireAmount,
} from './money.js';
export { ITEMS_MAX_LENGTH, decodeItems, encodeItems, itemsTotal, type LineItem } from './items.js';
export { formatGatewayTimestamp, parseGatewayTimestamp } from './dates.js';
export {
  DEFAULT_RECIPES, SIGNED_OPERATIONS, signMessage, verifyMessage,
  type RecipePart, type RecipeTable, type SignatureRecipe, type SignedOperation,
} from './signing.js';
export {
  ELEMENT_STATUS, GATEWAY_ERROR_CODES, NOTIFICATION_TYPES, ORDER_STATUS, PAYMENT_STATUS, REFUND_MESSAGE, RESULT_INFO,
  RETURN_MESSAGE_OK, RETURN_STATUS, outcomeOfOrderStatus, outcomeOfPaymentStatus,
  type NotificationType, type OrderStatusCode, type PaymentOutcome, type PaymentStatusCode,
} from './codes.js';
export { buildResponXml, parseAuthoriseXml, type ResponXmlFields } from './xml.js';
export { readWireBody } from './wire.js';

// The schema of each message, request and answer.
export { gatewayErrorBodySchema, zodIssuesToFields, type FieldIssue, type GatewayErrorBody } from './schemas/common.js';
export {
  apmPaymentRequestSchema, checkoutRequestSchema, directPaymentRequestSchema,
  type ApmPaymentRequest, type CheckoutRequest, type DirectPaymentRequest,
} from './schemas/payments.js';
export { authoriseResponseSchema, type AuthoriseResponse, type RiskReason } from './schemas/responses.js';
export {
  BATCH_LIMITS,
  cancelRequestSchema, cancelResponseSchema, captureRequestSchema, captureResponseSchema, refundRequestSchema,
  refundResponseSchema, reviewRequestSchema, reviewResponseSchema, updateOrdersRequestSchema, updateOrdersResponseSchema,
  type CancelRequest, type CancelResponse, type CancelResultElement, type CaptureRequest, type CaptureResponse,
  type CaptureResultElement, type RefundRequest, type RefundResponse, type RefundResultElement, type ReviewRequest,
  type ReviewResponse, type ReviewResultElement, type UpdateOrdersRequest, type UpdateOrdersResponse,
  type UpdateOrdersResultElement,
} from './schemas/batch.js';
export {
  QUERY_LIST_MAX_ENTRIES, QUERY_LIST_MAX_LENGTH,
  queryOrderSchema, queryRequestSchema, queryResponseSchema, refundRecordSchema, refundSearchRequestSchema,
  refundSearchResponseSchema,
  type QueryOrderElement, type QueryRequest, type QueryResponse, type RefundRecordElement, type RefundSearchRequest,
  type RefundSearchResponse,
} from './schemas/queries.js';
export { payoutRequestSchema, payoutResponseSchema, type PayoutRequest, type PayoutResponse } from './schemas/payouts.js';
export {
  cancelSubscriptionRequestSchema, cancelSubscriptionResponseSchema,
  type CancelSubscriptionRequest, type CancelSubscriptionResponse,
} from './schemas/subscriptions.js';
export { optimiseRequestSchema, optimiseResponseSchema, type OptimiseRequest, type OptimiseResponse } from './schemas/optimise.js';
export { notificationSchema, type Notification } from './schemas/notifications.js';
