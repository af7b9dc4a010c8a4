export * from './errors.js';
export * from './logging.js';
export * from './gateway/index.js';
export * from './orders/index.js';
export * from './checkout/index.js';
export * from './admin/index.js';
export {
  createSandbox, TEST_CARDS, APM_METHODS, FAULT_KINDS, SANDBOX_DEFAULT_ACCOUNT_ID, SANDBOX_DEFAULT_MERCHANT_ID, SANDBOX_DEFAULT_SIGN_KEY,
  type ApmMethod, type CardBehaviour, type FaultRule, type Sandbox, type SandboxLedger, type SandboxListener, type SandboxOptions,
} from './sandbox/index.js';
export * from './observability/index.js';
