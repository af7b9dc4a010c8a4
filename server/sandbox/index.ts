// `acquiring-checkout-kit/sandbox`: the local gateway, its options, test cards, faults to inject,
// and the records its ledger holds. Its routes, wire reading and schemas stay inside.
export { createSandbox, type Sandbox, type SandboxListener } from './sandbox.js';
export { SANDBOX_DEFAULT_ACCOUNT_ID, SANDBOX_DEFAULT_MERCHANT_ID, SANDBOX_DEFAULT_SIGN_KEY, type SandboxOptions } from './options.js';
export type { SandboxLedger } from './ledger.js';
export { FAULT_KINDS, SANDBOX_OPERATIONS, type FaultKind, type FaultRule, type SandboxOperation } from './faults.js';
export { TEST_CARDS, type CardBehaviour } from './cards.js';
export { APM_METHODS, type ApmMethod } from './apm-methods.js';
export type {
  CaptureMode, DeliveryAttempt, DeliveryStatus, PendingPayment, RiskReason, SandboxAccount, SandboxNotification,
  SandboxPayout, SandboxRefund, SandboxSession, SandboxSubscription, SandboxToken, SandboxTransaction,
  SandboxUpdateOrder, SessionKind, SubscriptionRequest, TransactionEvent, TransactionKind,
} from './types.js';
export type { ClockAdvance } from './clock.js';
