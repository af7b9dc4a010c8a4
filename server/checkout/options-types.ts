/**
 * The options of `createCheckoutKit` as a shop writes them (`CheckoutKitOptions`) and as the
 * kit's parts read them after validation and defaults (`ResolvedKitOptions`).
 */
import type { Request, Response } from 'express';
import type { Store as RateLimitStore } from 'express-rate-limit';
import type { Registry } from 'prom-client';
import type { AdminStore, PayoutRecord, PayoutStatus } from '../admin/store.js';
import type { GatewayClient } from '../gateway/client.js';
import type { SignatureRecipe, SignedOperation } from '../gateway/signing.js';
import type { Catalogue, TranslationOverrides } from '../i18n/index.js';
import type { Logger } from '../logging.js';
import type { OrderHooks } from '../orders/hooks.js';
import type { OutboxDispatcherOptions } from '../orders/outbox-dispatcher.js';
import type { OrderStore } from '../orders/store.js';
import type { PaymentMethodKind } from '../orders/types.js';
import type { PayPageRender } from './pay/view.js';

/** What a payout notification changed. */
export interface PayoutChange {
  from: PayoutStatus;
  to: PayoutStatus;
  /** The notification's `webhooks_type` (e.g. `payout`). */
  type: string;
}

/**
 * The shop's callbacks: the order hooks, called by the reconcile engine exactly once per
 * transition, and `onPayoutChanged`, called when a payout notification changes a payout's status (before it is stored; called again on the resend if it throws).
 */
export type CheckoutHooks = OrderHooks & {
  onPayoutChanged?: (payout: PayoutRecord, change: PayoutChange) => void | Promise<void>;
};

export type ThreeDSMode = 'do3DS' | 'no3DS';

export interface KitGatewayOptions {
  /** Base URL of the gateway, e.g. `https://gateway.example/` (the `/v1/…` paths are appended). */
  baseUrl: string;
  merchantId: string;
  accountId: string;
  /** The account's `sign_key`: signs requests and verifies responses and notifications. */
  signKey: string;
  /** Extra keys accepted when verifying (key rotation). */
  verifyKeys?: string[];
  timeoutMs?: number;
  /** Content type sent with JSON bodies; the client's default is the samples' form content type. */
  jsonContentType?: string;
  /** Signature recipe overrides per operation. */
  recipes?: Partial<Record<SignedOperation, SignatureRecipe>>;
  /** Refuse unsigned gateway replies (the client's `requireReplySignatures`); default false. */
  requireReplySignatures?: boolean;
  /** Unit of payout amount digits (the client's `payoutAmountUnit`); default 'major'. */
  payoutAmountUnit?: 'minor' | 'major';
}

export interface KitRateLimitOptions {
  windowMs?: number;
  limit?: number;
  /** An express-rate-limit store (e.g. Redis) shared by several shop instances. */
  store?: RateLimitStore;
}

export interface KitSweeperOptions {
  enabled?: boolean;
  intervalMs?: number;
  /** A pending / requires_action order untouched this long is queried. */
  stuckAfterMs?: number;
  /** A requires_action order this old with no answer from the gateway expires (after a final query). */
  expireAfterMs?: number;
  /** How long a run's claim on an order lasts if the process dies mid-run (default 60 s). */
  leaseMs?: number;
  /** Orders per query, at most the gateway's 100 (the default). */
  batchSize?: number;
  /** A staff refund left pending (its answer lost) is looked up in the refund search once this old (default 2 min). */
  refundSettleAfterMs?: number;
  /** A pending refund the refund search still does not show once this old becomes failed (default 1 h). */
  refundFailAfterMs?: number;
  /** How many live subscriptions each run asks the gateway about, paging through all of them run after run (default 500). */
  subscriptionScanLimit?: number;
  /** Settled orders (authorized, paid, refunded, charged back) created this recently are asked about again, for changes made at the gateway whose notification was lost (default 120 days, at most 100 years). */
  revisitWithinMs?: number;
  /** A new pass over those orders starts at most this often (default 1 h). */
  revisitEveryMs?: number;
  /** Settled orders each run asks about again, one query call per `batchSize`; 0 turns the round off (default 500). */
  revisitLimit?: number;
}

/** The hook outbox's dispatcher (docs/orders.md, "Hooks"); the timings are the dispatcher's own options. */
export type KitOutboxOptions = {
  /** Deliver in this process: the background loop that retries failed hooks and picks up what a crash left. */
  enabled?: boolean;
} & Pick<OutboxDispatcherOptions, 'intervalMs' | 'leaseMs' | 'batchSize' | 'maxAttempts' | 'backoffMs' | 'maxBackoffMs' | 'waitMs' | 'stopGraceMs'>;

/** Options of `createCheckoutKit`; docs/checkout.md has the full table with defaults. */
export interface CheckoutKitOptions {
  gateway: KitGatewayOptions;
  /** Absolute URL where the router is mounted; return/cancel/notify/pay/result URLs are built from it. */
  publicUrl: string;
  /**
   * Secret (≥ 32 characters) for URL tokens, or several for rotation (the first signs). Unset
   * (or empty) outside production: a development secret is generated and kept in
   * data/checkout-token-secret, with a warning; refused when NODE_ENV=production.
   */
  tokenSecret?: string | string[] | undefined;
  /** Default: SQLite in data/checkout.sqlite; required when NODE_ENV=production. */
  store?: OrderStore;
  hooks?: CheckoutHooks;
  /** The merchant site sent as `website`. Default: the host of `publicUrl`. */
  website?: string;
  /** Default ['hosted', 'card', 'apm']. */
  methods?: PaymentMethodKind[];
  /** Default 'hosted' (or the first of `methods`). */
  defaultMethod?: PaymentMethodKind;
  /** Default 'do3DS'. */
  threeDS?: ThreeDSMode;
  /** Query the gateway before a notification moves money or ends a payment. Default true. */
  confirmNotifications?: boolean;
  rateLimit?: KitRateLimitOptions;
  sweeper?: KitSweeperOptions;
  outbox?: KitOutboxOptions;
  logger?: Logger;
  /** An existing client (tests); default: one built from `gateway`. */
  client?: GatewayClient;
  /**
   * Where payout notifications find their payout and notifications no order matches are kept.
   * Pass the same store to `createAdminRouter` (or let the admin take `kit.adminStore`).
   * Default: memory.
   */
  adminStore?: AdminStore;
  fetch?: typeof globalThis.fetch;
  /**
   * The shop's language for pages when neither the order's `locale` nor the browser's
   * Accept-Language names one the kit has (en, nl, de, fr, es, or one added in `translations`). Default 'en'.
   */
  locale?: string;
  /** Extra languages or overridden strings, by locale, shaped like the kit's `locales/en.json`. */
  translations?: TranslationOverrides;
  /** Absolute URL of the shop: the result page links back to it ("Back to the shop"). */
  shopUrl?: string;
  /**
   * Draws the pay page (first render and re-render after an error) in the shop's own layout,
   * e.g. `res.status(page.status)` + the shop's pug view embedding the kit's mixins. Default:
   * the kit's own page. Must answer the request.
   */
  payPage?: (req: Request, res: Response, page: PayPageRender) => void | Promise<void>;
  /** Prometheus metrics (docs/operations.md): the shop's own prom-client Registry; default a new one (`kit.metrics.registry`). */
  metrics?: { registry?: Registry };
  /** `kit.health()` (docs/operations.md): gateway probe timeout (default 2000 ms), outbox overdue limit (default 300000 ms). */
  health?: { gatewayTimeoutMs?: number; outboxStuckAfterMs?: number };
}

export interface ResolvedKitOptions {
  gateway: Required<Omit<KitGatewayOptions, 'recipes' | 'jsonContentType' | 'requireReplySignatures' | 'payoutAmountUnit'>> &
    Pick<KitGatewayOptions, 'recipes' | 'jsonContentType' | 'requireReplySignatures' | 'payoutAmountUnit'>;
  /** The mount point's public URL, without a trailing slash. */
  publicUrl: string;
  /** Token secrets, the signing one first. */
  tokenSecrets: string[];
  store: OrderStore | undefined;
  hooks: CheckoutHooks;
  website: string;
  methods: PaymentMethodKind[];
  defaultMethod: PaymentMethodKind;
  threeDS: ThreeDSMode;
  confirmNotifications: boolean;
  rateLimit: { windowMs: number; limit: number; store?: RateLimitStore | undefined };
  sweeper: Required<KitSweeperOptions>;
  outbox: Required<KitOutboxOptions>;
  /** Redacting logger (wraps the shop's). */
  logger: Logger;
  client: GatewayClient | undefined;
  adminStore: AdminStore | undefined;
  fetch: typeof globalThis.fetch | undefined;
  /** The pages' strings (built-in languages plus `translations`), `locale` as the default. */
  i18n: Catalogue;
  shopUrl: string | undefined;
  payPage: CheckoutKitOptions['payPage'];
  metrics: { registry?: Registry | undefined };
  health: { gatewayTimeoutMs?: number | undefined; outboxStuckAfterMs?: number | undefined };
  /** NODE_ENV === 'production' when the kit was created. */
  production: boolean;
}

export type { PayPageRender } from './pay/view.js';
