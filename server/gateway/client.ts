/**
 * `createGatewayClient(options)`: the typed client for every operation of the interface. Options
 * are checked once here (ConfigError naming the option and the fix); each family of operations
 * lives in its own module under operations/.
 */
import { ConfigError } from '../errors.js';
import { redactingLogger, silentLogger, type Logger } from '../logging.js';
import type { CallOptions, RetryPolicy } from './core.js';
import { createBatchApi, type BatchApi } from './operations/batch.js';
import type { BatchItemResult } from './operations/batch-runner.js';
import type { ClientContext, PayoutAmountUnit } from './operations/context.js';
import { createNotificationsApi, type NotificationsApi } from './operations/notifications.js';
import { createOptimise, type OptimiseInput, type OptimiseResult } from './operations/optimise.js';
import { createPaymentsApi, type PaymentsApi } from './operations/payments.js';
import { createPayoutsApi, type PayoutsApi } from './operations/payouts.js';
import { createQueriesApi, type QueriesApi } from './operations/queries.js';
import { createSubscriptionsApi, type SubscriptionsApi } from './operations/subscriptions.js';
import { createUpdateOrders, type UpdateOrderInput } from './operations/update-orders.js';
import type { UpdateOrdersResultElement } from './schemas/batch.js';
import { GATEWAY_ACCOUNT_OPTIONS, gatewayAccountSchema } from './client-options.js';
import { resolveRecipes, SIGNED_OPERATIONS, type SignatureRecipe, type SignedOperation } from './signing.js';
import { fetchTransport, undiciTransport } from './transport.js';
import { DEFAULT_JSON_CONTENT_TYPE } from './wire.js';
import type { GatewayCallObserver } from './observed-call.js';

export interface GatewayClientOptions {
  /** e.g. https://gateway.example/ (test and live accounts have separate base URLs). */
  baseUrl: string;
  merchantId: string;
  accountId: string;
  /** The account's sign key: case-sensitive, never logged. */
  signKey: string;
  /** Extra keys accepted when verifying replies (key rotation). */
  verifyKeys?: string[];
  /**
   * Sends every request through this fetch instead of the client's own transport (undici's
   * request on a keep-alive Agent, one pool per client).
   */
  fetch?: typeof fetch;
  /** Per-call timeout; default 30 000 ms. */
  timeoutMs?: number;
  /** Content type sent with JSON bodies; default application/x-www-form-urlencoded, as the samples. */
  jsonContentType?: string;
  /** Overrides of the signature recipes, per operation. */
  recipes?: Partial<Record<SignedOperation, SignatureRecipe>>;
  logger?: Logger;
  /** Counts and times each gateway request (the kit passes its metrics). */
  observer?: GatewayCallObserver;
  /** Retries of the two reads (query, refund search); default 3 attempts, 200 ms base delay. */
  readRetries?: RetryPolicy;
  /** Check amount = item_total + shipping + … − discount before sending; default false. */
  checkAmountComponents?: boolean;
  /** Batch requests in flight at once; default 4. */
  batchConcurrency?: number;
  /**
   * Refuse any reply that carries no signature (ERR_PROTOCOL_SIGNATURE). Default false: a
   * signature that is present is always verified, a missing one is accepted, because the
   * published query sample carries none. The unsigned APM / 3-D Secure redirect (`issuer_url`
   * without a result) is accepted either way: the interface lists no signature for it.
   */
  requireReplySignatures?: boolean;
  /**
   * What the digits of payout `payment_amount` / `source_amount` count (the interface says only
   * "string of digits", e.g. "10000"). Default 'major': whole units of the currency, so an
   * amount with a fractional part is refused; 'minor' sends minor units (10050 for 100.50 USD).
   * Misreading 'major' as minor under-pays a hundredfold; the reverse would over-pay, so the
   * default is the one whose mistake is recoverable.
   */
  payoutAmountUnit?: PayoutAmountUnit;
}

export interface GatewayClient {
  payments: PaymentsApi;
  queries: QueriesApi;
  batch: BatchApi;
  payouts: PayoutsApi;
  subscriptions: SubscriptionsApi;
  /** Verifies the gateway's notifications with this client's keys (like stripe-node's webhooks.constructEvent). */
  notifications: NotificationsApi;
  optimise(input: OptimiseInput, options?: CallOptions): Promise<OptimiseResult>;
  updateOrders(
    orders: UpdateOrderInput[],
    options?: CallOptions,
  ): Promise<BatchItemResult<UpdateOrdersResultElement, UpdateOrderInput>[]>;
  /**
   * Releases the client's idle keep-alive connections; requests under way finish first and their
   * connections then close. Nothing to release when a `fetch` was passed.
   */
  close(): void;
}

/** Every option name; the compiler keeps this in step with GatewayClientOptions. */
const OPTION_NAMES: Record<keyof GatewayClientOptions, true> = {
  baseUrl: true, merchantId: true, accountId: true, signKey: true, verifyKeys: true, fetch: true, timeoutMs: true,
  jsonContentType: true, recipes: true, logger: true, observer: true, readRetries: true, checkAmountComponents: true, batchConcurrency: true,
  requireReplySignatures: true, payoutAmountUnit: true,
};
const KNOWN_OPTIONS = new Set(Object.keys(OPTION_NAMES));

function positiveInt(value: number | undefined, fallback: number, option: string, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new ConfigError(option, `must be a whole number from 1 to ${max}, got ${String(value)}`, `set ${option} to a whole number in range or leave it out`);
  }
  return value;
}

/** How to fix each account option, shown in the ConfigError. */
const FIXES: Readonly<Record<string, string>> = {
  baseUrl: 'pass the gateway base URL, e.g. https://gateway.example',
  merchantId: 'use the merchant_id the gateway issued',
  accountId: 'use the account_id the gateway issued',
  signKey: 'pass the sign key issued for this account_id',
  verifyKeys: 'list the previous sign keys still accepted, or leave it out',
  timeoutMs: 'set timeoutMs to a whole number from 1 to 600000 or leave it out',
  jsonContentType: 'use a media type such as "application/json", or leave it out',
  requireReplySignatures: 'set it to true to refuse unsigned replies, or leave it out',
  payoutAmountUnit: "ask the gateway which unit payout amounts count and set 'minor' or 'major'",
  recipes: `use one of ${SIGNED_OPERATIONS.join(', ')}, each mapped to a non-empty list of fields`,
};

function checkOptions(options: GatewayClientOptions): void {
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new ConfigError(key, 'is not a known option', `remove "${key}" or check its spelling`);
  }
  const account: Record<string, unknown> = {};
  for (const key of GATEWAY_ACCOUNT_OPTIONS) if (options[key] !== undefined) account[key] = options[key];
  const parsed = gatewayAccountSchema.safeParse(account);
  const issue = parsed.error?.issues[0];
  if (issue === undefined) return;
  const top = String(issue.path[0] ?? '(options)');
  // A recipe is named by its operation; any other option by its own name.
  const option = issue.code === 'unrecognized_keys' ? `${top}.${issue.keys[0] ?? ''}` : top === 'recipes' ? issue.path.slice(0, 2).map(String).join('.') : top;
  const problem = issue.code === 'invalid_type' && issue.input === undefined ? 'is missing' : issue.code === 'unrecognized_keys' ? 'is not a signed operation' : issue.message;
  throw new ConfigError(option, problem, FIXES[top] ?? 'see docs/client.md for the options');
}

export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  checkOptions(options);
  const readRetries = options.readRetries ?? { attempts: 3, baseDelayMs: 200 };
  positiveInt(readRetries.attempts, 3, 'readRetries.attempts', 10);
  if (!Number.isFinite(readRetries.baseDelayMs) || readRetries.baseDelayMs < 0) {
    throw new ConfigError('readRetries.baseDelayMs', 'must be zero or more milliseconds', 'set a delay such as 200');
  }
  // Checked by the account schema; the operation paths are appended to it.
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  // One transport per client: its keep-alive pool lives as long as the client (an agent holds no
  // socket before its first request, so a later ConfigError leaks nothing).
  const transport = options.fetch === undefined ? undiciTransport() : fetchTransport(options.fetch);
  const ctx: ClientContext = {
    core: {
      baseUrl,
      transport,
      timeoutMs: options.timeoutMs ?? 30_000,
      jsonContentType: options.jsonContentType ?? DEFAULT_JSON_CONTENT_TYPE,
      // Nothing to redact for when nothing is logged: the silent logger stays as it is.
      logger: options.logger === undefined || options.logger === silentLogger ? silentLogger : redactingLogger(options.logger),
      readRetries,
      observer: options.observer,
    },
    merchantId: options.merchantId,
    accountId: options.accountId,
    signKey: options.signKey,
    verifyKeys: [options.signKey, ...(options.verifyKeys ?? [])],
    recipes: resolveRecipes(options.recipes),
    checkAmountComponents: options.checkAmountComponents ?? false,
    batchConcurrency: positiveInt(options.batchConcurrency, 4, 'batchConcurrency', 32),
    requireReplySignatures: options.requireReplySignatures ?? false,
    payoutAmountUnit: options.payoutAmountUnit ?? 'major',
  };
  return {
    payments: createPaymentsApi(ctx),
    queries: createQueriesApi(ctx),
    batch: createBatchApi(ctx),
    payouts: createPayoutsApi(ctx),
    subscriptions: createSubscriptionsApi(ctx),
    notifications: createNotificationsApi(ctx),
    optimise: createOptimise(ctx),
    updateOrders: createUpdateOrders(ctx),
    close: () => {
      transport.close();
    },
  };
}
