/**
 * What the kit's parts report as they work, in a few well-named calls: the engine, the gateway
 * client, the notify and pay routes, the sweeper, the hook outbox and the rate limits call these
 * and know nothing of Prometheus. `createKitMetrics` (metrics.ts) implements it; `noObserver`
 * is what a part uses when it was given none.
 *
 * Every argument is from a small fixed set (method, state, operation, result…): never an order
 * number, an e-mail or anything the shopper typed, so metric label sets stay bounded.
 */
import { trace } from '@opentelemetry/api';
import type { GatewayCallObserver } from '../gateway/observed-call.js';
import type { OrderObserver } from '../orders/order-observer.js';
import type { PaymentMethodKind } from '../orders/types.js';

/** How one notification ended, as the notify route answered it. */
export type NotificationResult =
  | 'applied' | 'duplicate' | 'ignored' | 'rejected' | 'mismatch' | 'unrecognised' | 'unmatched' | 'payout'
  | 'retry' | 'refused_signature' | 'other_account' | 'unreadable' | 'error';

/** Which limit refused a request. */
export type RateLimiter = 'pay' | 'admin_sign_in';

/** Why a payment attempt looks like card testing. */
export type CardTestingSignal = 'rate_limit' | 'repeated_fields';

/** The kit's one observer: what the gateway client and the order side report, and the routes' own events. */
export interface KitObserver extends GatewayCallObserver, OrderObserver {
  /** A shopper's payment was sent to the gateway with this method. */
  paymentStarted(method: PaymentMethodKind): void;
  notification(result: NotificationResult): void;
  rateLimited(limiter: RateLimiter): void;
  cardTestingSuspected(signal: CardTestingSignal): void;
}

const nothing = (): void => undefined;

export const noObserver: KitObserver = {
  paymentStarted: nothing,
  paymentFinished: nothing,
  notification: nothing,
  gatewayCall: nothing,
  sweepFinished: nothing,
  hookFailed: nothing,
  rateLimited: nothing,
  cardTestingSuspected: nothing,
};

/**
 * The decline code's family: a bounded label from the gateway's result code. Codes the kit
 * does not know are `other`, so a new code cannot grow the label set.
 */
export function declineFamily(resultCode: string | null | undefined): string {
  const code = (resultCode ?? '').split(':')[0]?.trim() ?? '';
  switch (code) {
    case '0005': return 'do_not_honor';
    case '0051': return 'insufficient_funds';
    case '0054': return 'expired_card';
    case '0096': return 'processing_error';
    case '0101': return 'risk_rejected';
    case '0201': return 'authentication_failed';
    case '0301': return 'abandoned';
    case '0400': return 'cancelled';
    case '': return 'unknown';
    default: return 'other';
  }
}

/** A payment sent with `method`: counted, and named on the pay request's span. */
export function observePayStarted(observer: KitObserver | undefined, method: PaymentMethodKind): void {
  trace.getActiveSpan()?.setAttribute('checkout.method', method);
  observer?.paymentStarted(method);
}
