export { createSandbox, type Sandbox, type SandboxListener } from './sandbox.js';
export { sandboxOptionsSchema, SANDBOX_DEFAULT_SIGN_KEY, SANDBOX_DEFAULT_MERCHANT_ID, SANDBOX_DEFAULT_ACCOUNT_ID, type SandboxOptions } from './options.js';
export type { SandboxLedger } from './ledger.js';
export { FAULT_KINDS, SANDBOX_OPERATIONS, faultRuleSchema, type FaultRule, type FaultKind, type StoredFaultRule, type SandboxOperation } from './faults.js';
export { TEST_CARDS, type CardBehaviour } from './cards.js';
export { APM_METHODS, type ApmMethod } from './apm-methods.js';
export { nominalSchedule, retryGapMs } from './retry.js';
export type * from './types.js';
export type { ClockAdvance } from './clock.js';
