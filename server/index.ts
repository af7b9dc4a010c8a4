// `acquiring-checkout-kit`: what a shop uses, by name. Each folder's index.ts is its public face;
// the entries ./gateway, ./sandbox and ./testing publish more of their own. docs/api.md lists the
// surface and test/unit/api-surface.test.ts keeps it from changing unnoticed.
export {
  ConfigError, GatewayError, KitError, NotificationError, ProtocolError, TransportError, ValidationError,
  errorDocsLink, isKitError,
  type ConfigErrorCode, type ErrorCode, type KitErrorOptions,
} from './errors.js';
export { consoleLogger, redactingLogger, silentLogger, type Logger } from './logging.js';
export { TRACER_NAME } from './tracing.js';

export { createCheckoutKit, type CheckoutKit } from './kit.js';
export type {
  CheckoutHooks, CheckoutKitOptions, CreatePaymentInput, CreatePaymentResult, KitContext, KitGatewayOptions,
  KitOutboxOptions, KitRateLimitOptions, KitSweeperOptions, KitUrls, OrderSummary, PayFormOptions, PayFormValues,
  PayPageRender, PayoutChange, ResolvedKitOptions, ThreeDSMode, TokenPurpose, UrlTokens,
} from './checkout/index.js';
export { cspMiddleware, noSniff, originOf, payFormLocals, refusalReason } from './checkout/index.js';
export { appServerClasses, createAppServer, type AppServerClasses } from './http/app-server.js';
export {
  BUILT_IN_LOCALES, createCatalogue, formatCard, formatDate, formatMoney, negotiateLocale,
  type Catalogue, type TranslationOverrides, type TranslationTree, type Translator,
} from './i18n/index.js';

export {
  DEFAULT_SQLITE_PATH, ORDER_STATES, OPEN_STATES, REFUND_STATUSES,
  checkRefundUpserts, createMemoryStore, createPostgresStore, createSqliteStore, initialOrder, isFinal, mergeRefunds,
  migratePostgres, refundedTotal,
} from './orders/index.js';
export type {
  AppendResult, ApplyOptions, ApplyResult, ApplyStatus, AttentionInfo, ClaimDue, DisputeInfo, DueQuery, EventPage, FactSource,
  GatewayOrderFact, GatewayPort, ListQuery, MemoryStoreOptions, MergeContext, NewEvent, NewOrder, NewOutboxEntry, Order,
  OrderEvent, OrderHook, OrderHooks, OrderPatch, OrderState, OrderStore, OutboxClaim, OutboxDispatcher, OutboxEntry,
  OutboxFailure, OutboxListQuery, OutboxStatus, PaymentFact, PaymentMethodKind, PendingRefundQuery, PgClientLike,
  PgPoolLike, PgResultLike, PostgresOrderStore, PostgresStoreOptions, ReconcileEngine, Refund, RefundChange, RefundInfo,
  RefundReport, RefundSource, RefundStatus, RefundSweepReport, RefundUpsert, RevisitSweepReport, SqliteOrderStore, SqliteStoreOptions, SubscriptionListQuery,
  SweepReport, Sweeper, TransitionExtras, TransitionInfo, TransitionResult,
  CaptureOptions, CaptureResult, CardBrand, NewSavedCard, RecurringCharge, SavedCard, SavedCardStore, SavedCardsApi, SavedCardSummary,
} from './orders/index.js';

export { createGatewayClient, parseWireAmount, toWireAmount } from './gateway/index.js';
export type {
  ApmPaymentInput, AuthoriseResult, BatchApi, BatchItemResult, BatchOrderInput, CallOptions, CancelOrderInput,
  CancelSubscriptionInput, CancelSubscriptionResult, CaptureOrderInput, CheckoutForm, CheckoutInput, DirectPaymentInput,
  GatewayClient, GatewayClientOptions, NotificationFact, NotificationKind, NotificationsApi, OptimiseInput, OptimiseResult,
  PaymentOutcome, PaymentsApi, PayoutAmountUnit, PayoutInput, PayoutResult, PayoutsApi, QueriesApi, QueryOrder,
  QueryResult, RankedPaymentMethod, RefundOrderInput, RefundRecord, RefundSearchResult, RetryPolicy, ReviewOrderInput,
  SubscriptionsApi, UpdateOrderInput,
} from './gateway/index.js';

export {
  JOB_ACTIONS, JOB_ITEM_STATUSES,
  createAdminRouter, createMemoryAdminStore, createPostgresAdminStore, createSqliteAdminStore, hashStaffPassword,
} from './admin/index.js';
export type {
  AdminGatewayClient, AdminJob, AdminKit, AdminPgPool, AdminPgQueryable, AdminRouter, AdminRouterOptions, AdminStore,
  JobAction, JobItem, JobItemStatus, JobItemUpdate, JobRunner, JobStatus, JobSummary, NewJob, PayoutPatch, PayoutRecord,
  PayoutStatus, PostgresAdminStoreOptions, SavePayoutResult, SignInOptions, SignInRateLimitOptions, SqliteAdminStoreOptions,
  Staff, StaffAccount, StaffLogin, StaffSessionRecord, StaffStore, UnmatchedNotification,
} from './admin/index.js';

export {
  APM_METHODS, FAULT_KINDS, SANDBOX_DEFAULT_ACCOUNT_ID, SANDBOX_DEFAULT_MERCHANT_ID, SANDBOX_DEFAULT_SIGN_KEY, TEST_CARDS,
  createSandbox,
  type ApmMethod, type CardBehaviour, type FaultRule, type Sandbox, type SandboxLedger, type SandboxListener, type SandboxOptions,
} from './sandbox/index.js';

export { createHealth, createHealthRouter, createKitMetrics, createMetricsRouter } from './observability/index.js';
export type {
  Health, HealthCheck, HealthCheckName, HealthOptions, HealthReport, KitMetrics, KitMetricsOptions, KitObserver,
  NotificationResult,
} from './observability/index.js';
