// The order side's public names: orders and their events, the store contract and the three stores,
// the refund ledger rules a custom store applies, and the hook and engine types the kit exposes.
export { ORDER_STATES, initialOrder } from './types.js';
export type { FactSource, NewEvent, NewOrder, Order, OrderEvent, OrderPatch, OrderState, PaymentMethodKind } from './types.js';
export { OPEN_STATES, isFinal } from './state-machine.js';
export type {
  AppendResult, ClaimDue, DueQuery, EventPage, ListQuery, NewOutboxEntry, OrderStore, OutboxClaim, OutboxEntry, OutboxFailure,
  OutboxListQuery, OutboxStatus, PendingRefundQuery, SubscriptionListQuery, TransitionExtras, TransitionResult,
} from './store.js';
export { REFUND_STATUSES, checkRefundUpserts, mergeRefunds, refundedTotal } from './refunds.js';
export type { MergeContext, Refund, RefundChange, RefundSource, RefundStatus, RefundUpsert } from './refunds.js';
export type { AttentionInfo, DisputeInfo, OrderHook, OrderHooks, RecurringCharge, RefundInfo, TransitionInfo } from './hooks.js';
export type {
  ApplyOptions, ApplyResult, ApplyStatus, GatewayOrderFact, GatewayPort, PaymentFact, ReconcileEngine, RefundReport,
} from './engine-types.js';
export type { OutboxDispatcher } from './outbox-dispatcher.js';
export type { SweepReport, Sweeper } from './sweeper.js';
export type { RefundSweepReport } from './sweeper-refunds.js';
export type { RevisitSweepReport } from './sweeper-revisits.js';
export { createMemoryStore, type MemoryStoreOptions } from './stores/memory.js';
export { DEFAULT_SQLITE_PATH, createSqliteStore, type SqliteOrderStore, type SqliteStoreOptions } from './stores/sqlite.js';
export {
  createPostgresStore, migratePostgres,
  type PgClientLike, type PgPoolLike, type PgResultLike, type PostgresOrderStore, type PostgresStoreOptions,
} from './stores/postgres.js';
export type { CaptureOptions, CaptureResult } from './capture.js';
export type { CardBrand, NewSavedCard, SavedCard, SavedCardStore, SavedCardsApi, SavedCardSummary } from './saved-cards.js';
