/**
 * What every checkout handler receives: validated options, the gateway client, the order store,
 * the reconcile engine, URL tokens and the absolute URLs the gateway and the shopper are sent to.
 */
import type { AdminStore } from '../admin/store.js';
import type { GatewayClient } from '../gateway/client.js';
import type { Logger } from '../logging.js';
import type { KitObserver } from '../observability/observer.js';
import type { ReconcileEngine } from '../orders/engine-types.js';
import type { OrderStore } from '../orders/store.js';
import type { ResolvedKitOptions } from './options-types.js';
import type { UrlTokens } from './tokens.js';

export type { ResolvedKitOptions } from './options-types.js';
export type { TokenPurpose, UrlTokens } from './tokens.js';

export interface KitUrls {
  pay(orderId: string): string;
  return(orderId: string): string;
  cancel(orderId: string): string;
  result(orderId: string): string;
  notify(): string;
}

export interface KitContext {
  options: ResolvedKitOptions;
  client: GatewayClient;
  store: OrderStore;
  engine: ReconcileEngine;
  /** Payouts (for payout notifications) and the list of unmatched notifications. */
  adminStore: AdminStore;
  tokens: UrlTokens;
  urls: KitUrls;
  /** Redacting logger. */
  logger: Logger;
  /** The kit's metrics (absent in contexts built by hand: nothing is counted). */
  observer?: KitObserver;
}

/** Absolute URLs under `publicUrl`; tokens go in the path, never the query string. */
export function createKitUrls(publicUrl: string, tokens: UrlTokens): KitUrls {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    pay: (orderId) => `${base}/pay/${tokens.sign(orderId, 'pay')}`,
    return: (orderId) => `${base}/return/${tokens.sign(orderId, 'return')}`,
    cancel: (orderId) => `${base}/cancel/${tokens.sign(orderId, 'cancel')}`,
    result: (orderId) => `${base}/result/${tokens.sign(orderId, 'result')}`,
    notify: () => `${base}/notify`,
  };
}
