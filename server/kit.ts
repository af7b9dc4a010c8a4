/**
 * createCheckoutKit(options): validates the options once and wires the parts — gateway client,
 * order store, reconcile engine, sweeper, URL tokens and the checkout router. Mounting is one
 * line: `app.use('/checkout', kit.router)`.
 */
import { randomUUID } from 'node:crypto';
import type { Router } from 'express';
import { createKitUrls, type KitContext } from './checkout/context.js';
import { createGatewayPort } from './checkout/gateway-port.js';
import { resolveKitOptions } from './checkout/options.js';
import { defaultLogger, tokenSecretOrDevelopment } from './checkout/start-checks.js';
import { redactingLogger, type Logger } from './logging.js';
import type { CheckoutKitOptions, ResolvedKitOptions } from './checkout/options-types.js';
import { createPayment, type CreatePaymentInput, type CreatePaymentResult } from './checkout/payments.js';
import { createCheckoutRouter } from './checkout/router.js';
import { createUrlTokens } from './checkout/tokens.js';
import { createGatewayClient, type GatewayClient } from './gateway/client.js';
import type { AdminStore } from './admin/store.js';
import { createMemoryAdminStore } from './admin/stores/memory.js';
import { captureOrder, type CaptureOptions, type CaptureResult } from './orders/capture.js';
import { createReconcileEngine } from './orders/engine.js';
import type { ReconcileEngine } from './orders/engine-types.js';
import { createSavedCardsApi, type SavedCardsApi } from './orders/saved-cards.js';
import type { OrderStore } from './orders/store.js';
import { createSqliteStore, DEFAULT_SQLITE_PATH } from './orders/stores/sqlite.js';
import { createSweeper, type Sweeper } from './orders/sweeper.js';
import { createKitOperations, type KitOperations } from './observability/kit-operations.js';

export interface CheckoutKit extends KitOperations {
  /** Mount with `app.use('/checkout', kit.router)` (the path of `publicUrl`). */
  router: Router;
  client: GatewayClient;
  engine: ReconcileEngine;
  sweeper: Sweeper;
  store: OrderStore;
  /**
   * Where payout notifications find their payout and unmatched notifications are kept: the
   * `adminStore` option, or a memory one. `createAdminRouter({ kit })` uses it by default.
   */
  adminStore: AdminStore;
  /** Shoppers' saved cards (stored-card tokens): list and remove them from code. */
  savedCards: SavedCardsApi;
  /** Creates the order server-side and returns the URL to send the shopper to. */
  createPayment(input: CreatePaymentInput): Promise<CreatePaymentResult>;
  /** Staff operations from the shop's code (docs/orders.md). */
  orders: {
    /** Captures an authorised order, all of it or `amount` minor units (the rest is released). */
    capture(orderId: string, options?: CaptureOptions): Promise<CaptureResult>;
  };
  /**
   * Stops the sweeper and the hook outbox's dispatcher, releases the gateway client's idle connections and closes the store, each
   * only when the kit created it itself (never a client or store you passed).
   */
  close(): Promise<void>;
  /** The context the handlers share (validated options, tokens, urls…), for custom routes. */
  context: KitContext;
}

/** The one place the default order store is chosen. */
/** The one place the default order store is chosen: SQLite in `data/checkout.sqlite`, created on first use. */
function defaultOrderStore(options: ResolvedKitOptions): OrderStore {
  return createSqliteStore({ path: DEFAULT_SQLITE_PATH, logger: options.logger });
}

/** The shop's logger if it looks like one (resolveKitOptions judges it properly), else the default. */
function earlyLogger(input: CheckoutKitOptions): Logger {
  const given = (input as { logger?: unknown }).logger;
  return typeof given === 'object' && given !== null && typeof (given as Logger).warn === 'function' ? redactingLogger(given as Logger) : defaultLogger();
}

export function createCheckoutKit(input: CheckoutKitOptions): CheckoutKit {
  // JavaScript callers may pass anything: resolveKitOptions says what is wrong with a non-object.
  const given: unknown = input;
  const withSecret = typeof given === 'object' && given !== null
    ? { ...input, tokenSecret: tokenSecretOrDevelopment(input.tokenSecret, process.env, earlyLogger(input)) }
    : given;
  const options = resolveKitOptions(withSecret);
  const { logger } = options;
  const ownStore = options.store === undefined;
  const store = options.store ?? defaultOrderStore(options);
  const operations = createKitOperations(options, store);
  const observer = operations.metrics;
  const client =
    options.client ??
    createGatewayClient({
      ...options.gateway,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      logger,
      observer,
    });
  const gateway = createGatewayPort(client);
  const instance = randomUUID();
  const { enabled: deliverInBackground, ...outbox } = options.outbox;
  const engine = createReconcileEngine({ store, hooks: options.hooks, gateway, owner: `checkout-${instance}`, logger, outbox, observer });
  const sweeper = createSweeper({
    engine,
    store,
    gateway,
    owner: `sweeper-${instance}`,
    intervalMs: options.sweeper.intervalMs,
    stuckAfterMs: options.sweeper.stuckAfterMs,
    expireAfterMs: options.sweeper.expireAfterMs,
    leaseMs: options.sweeper.leaseMs,
    batchSize: options.sweeper.batchSize,
    refundSettleAfterMs: options.sweeper.refundSettleAfterMs,
    refundFailAfterMs: options.sweeper.refundFailAfterMs,
    subscriptionScanLimit: options.sweeper.subscriptionScanLimit,
    revisitWithinMs: options.sweeper.revisitWithinMs,
    revisitEveryMs: options.sweeper.revisitEveryMs,
    revisitLimit: options.sweeper.revisitLimit,
    logger,
    observer,
  });
  const tokens = createUrlTokens({ secrets: options.tokenSecrets });
  const adminStore = options.adminStore ?? createMemoryAdminStore();
  const context: KitContext = { options, client, store, engine, adminStore, tokens, urls: createKitUrls(options.publicUrl, tokens), logger, observer };
  const router = createCheckoutRouter(context);
  if (options.sweeper.enabled) sweeper.start();
  if (deliverInBackground) engine.outbox.start();

  let closed: Promise<void> | null = null;
  return {
    ...operations,
    router,
    client,
    engine,
    sweeper,
    store,
    adminStore,
    context,
    createPayment: (payment) => createPayment(context, payment),
    orders: { capture: (orderId, capture) => captureOrder({ client, engine, store }, orderId, capture) },
    savedCards: createSavedCardsApi(store.savedCards),
    close() {
      closed ??= (async () => {
        await sweeper.stop();
        await engine.outbox.stop();
        if (options.client === undefined) client.close();
        if (ownStore) await store.close?.();
      })();
      return closed;
    },
  };
}
