// The checkout side's public names: the kit's options and the types its parts expose, and what a
// shop's own pay page or routes use (pay page locals, CSP, no-sniff).
export type {
  CheckoutHooks, CheckoutKitOptions, KitGatewayOptions, KitOutboxOptions, KitRateLimitOptions, KitSweeperOptions,
  PayPageRender, PayoutChange, ResolvedKitOptions, ThreeDSMode,
} from './options-types.js';
export type { KitContext, KitUrls } from './context.js';
export type { TokenPurpose, UrlTokens } from './tokens.js';
export type { CreatePaymentInput, CreatePaymentResult } from './payments.js';
export { payFormLocals, type OrderSummary, type PayFormOptions, type PayFormValues } from './pay/form.js';
export { refusalReason } from './result.js';
export { cspMiddleware, originOf } from '../http/csp.js';
export { noSniff } from '../http/no-sniff.js';
export type { SavedCardChoice, SavedCardOffer } from './pay/view.js';
