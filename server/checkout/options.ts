/**
 * Validates the options of `createCheckoutKit` once, at start-up, and fills in the defaults.
 * Every problem is a ConfigError naming the option and saying how to fix it; unknown options
 * are rejected (a misspelt `tokenSecrets` must not silently fall back to a default).
 */
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { gatewayAccountSchema } from '../gateway/client-options.js';
import { QUERY_LIST_MAX_ENTRIES } from '../gateway/schemas/queries.js';
import { SIGNED_OPERATIONS } from '../gateway/signing.js';
import { createCatalogue } from '../i18n/index.js';
import { redactingLogger } from '../logging.js';
import { OUTBOX_DEFAULTS } from '../orders/outbox-dispatcher.js';
import { REVISIT_LIMIT_MAX, REVISIT_WITHIN_MAX_MS } from '../orders/sweeper.js';
import type { CheckoutKitOptions, ResolvedKitOptions } from './options-types.js';
import { checkPublicUrlForProduction, checkStoreForProduction, defaultLogger } from './start-checks.js';

export const TOKEN_SECRET_MIN_LENGTH = 32;
export const METHOD_KINDS = ['hosted', 'card', 'apm'] as const;
export const HOOK_NAMES = [
  'onTransition', 'onPaid', 'onAuthorized', 'onFailed', 'onCancelled', 'onExpired', 'onRefunded',
  'onChargeback', 'onDispute', 'onInReview', 'onRequiresAction', 'onAttention', 'onPayoutChanged',
  'onRecurringCharge',
] as const;

/** Each subscription round reads this many orders at most (one query call per 100 of them). */
const SUBSCRIPTION_SCAN_MAX = 100_000;

export const OPTION_DEFAULTS = {
  methods: ['hosted', 'card', 'apm'],
  defaultMethod: 'hosted',
  threeDS: 'do3DS',
  confirmNotifications: true,
  gateway: { timeoutMs: 30_000 },
  rateLimit: { windowMs: 15 * 60 * 1000, limit: 30 },
  sweeper: {
    enabled: true, intervalMs: 30 * 1000, stuckAfterMs: 2 * 60 * 1000, expireAfterMs: 30 * 60 * 1000, leaseMs: 60 * 1000, batchSize: QUERY_LIST_MAX_ENTRIES,
    refundSettleAfterMs: 2 * 60 * 1000, refundFailAfterMs: 60 * 60 * 1000, subscriptionScanLimit: 500,
    revisitWithinMs: 120 * 24 * 60 * 60 * 1000, revisitEveryMs: 60 * 60 * 1000, revisitLimit: 500,
  },
  outbox: { enabled: true, ...OUTBOX_DEFAULTS },
} as const;

const GENERATE_SECRET = "generate one with `node -e \"console.log(crypto.randomBytes(32).toString('base64url'))\"`";

/** How to fix each option, shown in the ConfigError. */
const FIXES: Record<string, string> = {
  gateway: 'pass gateway: { baseUrl, merchantId, accountId, signKey } from your gateway account',
  'gateway.baseUrl': 'set gateway.baseUrl to the absolute URL of the gateway, e.g. "https://gateway.example/" (the sandbox prints its own)',
  'gateway.merchantId': 'set gateway.merchantId to your merchant_id (at most 7 characters, e.g. "701001")',
  'gateway.accountId': 'set gateway.accountId to your account_id (at most 10 characters, e.g. "701001010")',
  'gateway.signKey': 'set gateway.signKey to the sign_key issued for this account_id (keep it out of source control)',
  'gateway.verifyKeys': 'pass an array of non-empty previous sign keys, or leave verifyKeys out',
  'gateway.timeoutMs': 'use a whole number of milliseconds between 1000 and 120000',
  'gateway.jsonContentType': 'use a media type such as "application/json", or leave it out to send the samples\' form content type',
  'gateway.requireReplySignatures': 'use true to refuse gateway replies that carry no signature, or false (default: verify a signature when present)',
  'gateway.payoutAmountUnit': "use 'major' (whole currency units, the default) or 'minor', whichever unit your gateway contract gives payout amounts",
  'gateway.recipes': `map operation names (${SIGNED_OPERATIONS.join(', ')}) to arrays of field names`,
  publicUrl: 'set publicUrl to the absolute https URL where the router is mounted, e.g. "https://shop.example/checkout"',
  tokenSecret: `use a random secret of at least ${String(TOKEN_SECRET_MIN_LENGTH)} characters: ${GENERATE_SECRET}`,
  store: 'pass an OrderStore (createSqliteStore, createPostgresStore, createMemoryStore or your own), or leave store out',
  hooks: `pass an object whose values are functions, with names among ${HOOK_NAMES.join(', ')}`,
  website: 'set website to your site name as registered with the gateway, e.g. "shop.example" (at most 2000 characters)',
  methods: `pass a non-empty list of distinct methods among ${METHOD_KINDS.join(', ')}`,
  defaultMethod: 'choose one of the enabled methods',
  threeDS: 'use "do3DS" (attempt 3-D Secure, recommended) or "no3DS"',
  confirmNotifications: 'use true (query the gateway before moving money-bearing states, recommended) or false',
  rateLimit: 'pass { windowMs, limit, store? } or leave rateLimit out',
  'rateLimit.windowMs': 'use a whole number of milliseconds of at least 1000',
  'rateLimit.limit': 'use a whole number of at least 1',
  'rateLimit.store': 'pass an express-rate-limit Store (with increment, decrement and resetKey)',
  sweeper: `pass { ${Object.keys(OPTION_DEFAULTS.sweeper).join(', ')} } or leave sweeper out`,
  'sweeper.enabled': 'use true or false',
  'sweeper.intervalMs': 'use a whole number of milliseconds of at least 100',
  'sweeper.stuckAfterMs': 'use a whole number of milliseconds of at least 1',
  'sweeper.expireAfterMs': 'use a whole number of milliseconds, larger than sweeper.stuckAfterMs',
  'sweeper.leaseMs': 'use a whole number of milliseconds of at least 1000',
  'sweeper.batchSize': `use a whole number from 1 to ${String(QUERY_LIST_MAX_ENTRIES)} (the gateway queries at most ${String(QUERY_LIST_MAX_ENTRIES)} orders per call)`,
  'sweeper.refundSettleAfterMs': 'use a whole number of milliseconds of at least 1',
  'sweeper.refundFailAfterMs': 'use a whole number of milliseconds of at least 1',
  'sweeper.subscriptionScanLimit': `use a whole number from 1 to ${String(SUBSCRIPTION_SCAN_MAX)} (the live subscriptions asked about each run)`,
  'sweeper.revisitWithinMs': `use a whole number of milliseconds from 1 to ${String(REVISIT_WITHIN_MAX_MS)} (100 years; settled orders created this recently are asked about again)`,
  'sweeper.revisitEveryMs': 'use a whole number of milliseconds of at least 1000 (a new pass over settled orders starts at most this often)',
  'sweeper.revisitLimit': `use a whole number from 0 (off) to ${String(REVISIT_LIMIT_MAX)} (settled orders each run asks about again)`,
  outbox: 'pass { enabled, intervalMs, leaseMs, batchSize, maxAttempts, backoffMs, maxBackoffMs, waitMs, stopGraceMs } or leave outbox out',
  'outbox.enabled': 'use true or false',
  'outbox.intervalMs': 'use a whole number of milliseconds of at least 10',
  'outbox.leaseMs': 'use a whole number of milliseconds of at least 100',
  'outbox.batchSize': 'use a whole number from 1 to 1000',
  'outbox.maxAttempts': 'use a whole number of at least 1',
  'outbox.backoffMs': 'use a whole number of milliseconds of at least 1',
  'outbox.maxBackoffMs': 'use a whole number of milliseconds, at least outbox.backoffMs',
  'outbox.waitMs': 'use a whole number of milliseconds of at least 0',
  'outbox.stopGraceMs': 'use a whole number of milliseconds of at least 0',
  logger: 'pass a pino-compatible logger (debug, info, warn, error functions)',
  client: 'pass a client made by createGatewayClient, or leave client out',
  adminStore: 'pass the AdminStore the admin uses (createSqliteAdminStore, createPostgresAdminStore, createMemoryAdminStore), or leave it out for memory',
  fetch: 'pass a fetch-compatible function, or leave fetch out',
  locale: 'use a language tag such as "en", "nl", "de", "fr" or "es" (or one you add in translations)',
  translations: 'pass { "<locale>": { …strings shaped like locales/en.json… } }',
  shopUrl: 'set shopUrl to the absolute URL of your shop, e.g. "https://shop.example/"',
  payPage: 'pass a function (req, res, page) that renders the pay page in your layout, or leave payPage out',
};

const isFn = (v: unknown): boolean => typeof v === 'function';
const hasFns = (v: unknown, names: readonly string[]): boolean =>
  typeof v === 'object' && v !== null && names.every((n) => isFn((v as Record<string, unknown>)[n]));

function absoluteUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.search === '' && url.hash === '';
  } catch {
    return false;
  }
}

const url = z.string().refine(absoluteUrl, 'must be an absolute http(s) URL without query string or fragment');
const secret = z.string().min(TOKEN_SECRET_MIN_LENGTH, `must be at least ${String(TOKEN_SECRET_MIN_LENGTH)} characters`);
const method = z.enum(METHOD_KINDS);
const ms = (min: number, max = 2_147_483_647): z.ZodInt => z.int().min(min).max(max);

/** The client's account schema, with the kit's bounds: no query in the URL, a timeout from 1 s to 2 min. */
const gatewaySchema = gatewayAccountSchema.extend({
  baseUrl: url,
  timeoutMs: ms(1000, 120_000).optional(),
});

const shape = {
  gateway: gatewaySchema,
  publicUrl: url,
  tokenSecret: z.union([secret, z.array(secret).min(1, 'must list at least one secret')]),
  store: z.custom((v) => hasFns(v, ['create', 'get', 'getByOrderNo', 'transition', 'appendEvent', 'acquireLease', 'claimOutbox', 'completeOutbox', 'failOutbox']), 'must be an OrderStore (with the outbox methods)').optional(),
  hooks: z.partialRecord(z.enum(HOOK_NAMES), z.custom(isFn, 'must be a function')).optional(),
  website: z.string().min(1).max(2000).optional(),
  methods: z.array(method).min(1).refine((m) => new Set(m).size === m.length, 'must not repeat a method').optional(),
  defaultMethod: method.optional(),
  threeDS: z.enum(['do3DS', 'no3DS']).optional(),
  confirmNotifications: z.boolean().optional(),
  rateLimit: z.strictObject({
    windowMs: ms(1000).optional(),
    limit: z.int().min(1).optional(),
    store: z.custom((v) => hasFns(v, ['increment', 'decrement', 'resetKey']), 'must be an express-rate-limit Store').optional(),
  }).optional(),
  sweeper: z.strictObject({
    enabled: z.boolean().optional(),
    intervalMs: ms(100).optional(),
    stuckAfterMs: ms(1).optional(),
    expireAfterMs: ms(1).optional(),
    leaseMs: ms(1000).optional(),
    batchSize: z.int().min(1).max(QUERY_LIST_MAX_ENTRIES).optional(),
    refundSettleAfterMs: ms(1).optional(),
    refundFailAfterMs: ms(1).optional(),
    subscriptionScanLimit: z.int().min(1).max(SUBSCRIPTION_SCAN_MAX).optional(),
    // Not timers: a window of days, beyond setTimeout's 24.8-day limit that `ms` keeps to.
    revisitWithinMs: z.int().min(1).max(REVISIT_WITHIN_MAX_MS).optional(),
    revisitEveryMs: z.int().min(1000).optional(),
    revisitLimit: z.int().min(0).max(REVISIT_LIMIT_MAX).optional(),
  }).optional(),
  outbox: z.strictObject({
    enabled: z.boolean().optional(),
    intervalMs: ms(10).optional(),
    leaseMs: ms(100).optional(),
    batchSize: z.int().min(1).max(1000).optional(),
    maxAttempts: z.int().min(1).optional(),
    backoffMs: ms(1).optional(),
    maxBackoffMs: ms(1).optional(),
    waitMs: ms(0).optional(),
    stopGraceMs: ms(0).optional(),
  }).optional(),
  logger: z.custom((v) => hasFns(v, ['debug', 'info', 'warn', 'error']), 'must be a logger').optional(),
  client: z.custom((v) => typeof v === 'object' && v !== null && hasFns((v as { queries?: unknown }).queries, ['transactions']), 'must be a GatewayClient').optional(),
  adminStore: z.custom((v) => hasFns(v, ['recordNotification', 'getPayout', 'getPayoutByTransactionId', 'updatePayout', 'listPayouts']), 'must be an AdminStore').optional(),
  fetch: z.custom(isFn, 'must be a function').optional(),
  locale: z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a language tag like "nl" or "de-AT"').optional(),
  translations: z.record(z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'keys must be language tags'), z.record(z.string(), z.unknown())).optional(),
  shopUrl: url.optional(),
  payPage: z.custom(isFn, 'must be a function').optional(),
  metrics: z.strictObject({
    registry: z.custom((v) => hasFns(v, ['registerMetric', 'metrics']), 'must be a prom-client Registry').optional(),
  }).optional(),
  health: z.strictObject({ gatewayTimeoutMs: ms(100).optional(), outboxStuckAfterMs: ms(1000).optional() }).optional(),
} satisfies { [K in keyof CheckoutKitOptions]-?: z.ZodType };

// The compiler keeps the schema and the options type in step: a key missing from `shape` or an
// extra one fails the `satisfies` above.
const optionsSchema = z.strictObject(shape);

function closest(name: string, candidates: readonly string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let prev = row[0] ?? 0;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const tmp = row[j] ?? 0;
        row[j] = Math.min((row[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, prev + (a[i - 1]?.toLowerCase() === b[j - 1]?.toLowerCase() ? 0 : 1));
        prev = tmp;
      }
    }
    return row[b.length] ?? Infinity;
  };
  const best = candidates.map((c) => ({ c, d: distance(name, c) })).sort((x, y) => x.d - y.d)[0];
  return best !== undefined && best.d <= Math.max(2, Math.floor(name.length / 3)) ? best.c : undefined;
}

function knownKeysAt(path: string): readonly string[] {
  if (path === '') return Object.keys(shape);
  if (path === 'gateway') return Object.keys(gatewaySchema.shape);
  if (path === 'rateLimit') return ['windowMs', 'limit', 'store'];
  if (path === 'sweeper') return Object.keys(OPTION_DEFAULTS.sweeper);
  if (path === 'outbox') return Object.keys(OPTION_DEFAULTS.outbox);
  if (path === 'hooks') return HOOK_NAMES;
  return [];
}

function toConfigError(issue: z.core.$ZodIssue): ConfigError {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const parent = path;
    const known = knownKeysAt(parent);
    const suggestion = closest(key, known);
    const option = parent === '' ? key : `${parent}.${key}`;
    return new ConfigError(
      option,
      'is not a known option',
      `${suggestion === undefined ? 'remove it' : `did you mean "${suggestion}"?`} Known options${parent === '' ? '' : ` of ${parent}`}: ${known.join(', ')}`,
    );
  }
  const top = issue.path[0] === undefined ? '(options)' : String(issue.path[0]);
  const fixKey = FIXES[path] !== undefined ? path : path.split('.').slice(0, 2).join('.');
  const fix = FIXES[fixKey] ?? FIXES[top] ?? 'see docs/checkout.md for the options';
  const problem = issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
  return new ConfigError(path === '' ? '(options)' : path, problem, fix, path === 'publicUrl' ? 'ERR_CONFIG_PUBLIC_URL' : 'ERR_CONFIG');
}

function fail(option: string, problem: string): never {
  throw new ConfigError(option, problem, FIXES[option] ?? 'see docs/checkout.md for the options');
}

/**
 * Validates `input` and returns the resolved options. Throws ConfigError for the first problem.
 * `env` is read for NODE_ENV (production demands https URLs).
 */
export function resolveKitOptions(input: unknown, env: NodeJS.ProcessEnv = process.env): ResolvedKitOptions {
  if (typeof input !== 'object' || input === null) {
    throw new ConfigError('(options)', 'must be an object', 'call createCheckoutKit({ gateway, publicUrl, tokenSecret, … })');
  }
  const parsed = optionsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue === undefined) fail('(options)', 'are invalid');
    throw toConfigError(issue);
  }
  // zod checked every shape; the function-typed options are typed by CheckoutKitOptions.
  const o = input as CheckoutKitOptions;
  const production = env.NODE_ENV === 'production';
  if (production) checkPublicUrlForProduction(o.publicUrl);
  if (production && new URL(o.gateway.baseUrl).protocol !== 'https:') fail('gateway.baseUrl', 'must be an https URL in production');
  checkStoreForProduction(o.store !== undefined, env);

  const methods = [...(o.methods ?? OPTION_DEFAULTS.methods)];
  const defaultMethod = o.defaultMethod ?? (methods.includes('hosted') ? 'hosted' : methods[0] ?? 'hosted');
  if (!methods.includes(defaultMethod)) fail('defaultMethod', `is "${defaultMethod}" but methods are ${methods.join(', ')}`);

  const sweeper = { ...OPTION_DEFAULTS.sweeper, ...o.sweeper };
  if (sweeper.expireAfterMs <= sweeper.stuckAfterMs) fail('sweeper.expireAfterMs', 'must be larger than sweeper.stuckAfterMs');

  const merged = { ...OPTION_DEFAULTS.outbox, ...o.outbox };
  // A change's answer never waits longer for its hooks than one lease, unless asked to.
  const outbox = { ...merged, waitMs: o.outbox?.waitMs ?? Math.min(OPTION_DEFAULTS.outbox.waitMs, merged.leaseMs) };
  if (outbox.maxBackoffMs < outbox.backoffMs) fail('outbox.maxBackoffMs', 'must be at least outbox.backoffMs');

  const tokenSecrets = typeof o.tokenSecret === 'string' ? [o.tokenSecret] : [...(o.tokenSecret ?? [])];
  if (tokenSecrets.includes(o.gateway.signKey)) fail('tokenSecret', 'must not be the gateway sign key');

  // The one resolved configuration: kit, client and routes read it; nothing copies the keys out.
  return deepFreeze({
    gateway: {
      ...o.gateway,
      verifyKeys: [...(o.gateway.verifyKeys ?? [])],
      timeoutMs: o.gateway.timeoutMs ?? OPTION_DEFAULTS.gateway.timeoutMs,
    },
    publicUrl: o.publicUrl.replace(/\/+$/, ''),
    tokenSecrets,
    store: o.store,
    hooks: o.hooks ?? {},
    website: o.website ?? new URL(o.publicUrl).host,
    methods,
    defaultMethod,
    threeDS: o.threeDS ?? OPTION_DEFAULTS.threeDS,
    confirmNotifications: o.confirmNotifications ?? OPTION_DEFAULTS.confirmNotifications,
    rateLimit: {
      windowMs: o.rateLimit?.windowMs ?? OPTION_DEFAULTS.rateLimit.windowMs,
      limit: o.rateLimit?.limit ?? OPTION_DEFAULTS.rateLimit.limit,
      store: o.rateLimit?.store,
    },
    sweeper,
    outbox,
    logger: o.logger === undefined ? defaultLogger() : redactingLogger(o.logger),
    client: o.client,
    adminStore: o.adminStore,
    fetch: o.fetch,
    i18n: createCatalogue({ defaultLocale: o.locale, translations: o.translations }),
    shopUrl: o.shopUrl,
    payPage: o.payPage,
    metrics: { registry: o.metrics?.registry },
    health: { ...o.health },
    production,
  });
}

/** Plain objects and arrays the resolver built (or copied); the shop's objects (store, logger, hooks…) are left alone. */
const FROZEN_PARTS = ['gateway', 'tokenSecrets', 'methods', 'rateLimit', 'sweeper', 'outbox', 'metrics', 'health'] as const;

function deepFreeze(options: ResolvedKitOptions): ResolvedKitOptions {
  for (const part of FROZEN_PARTS) Object.freeze(options[part]);
  Object.freeze(options.gateway.verifyKeys);
  return Object.freeze(options);
}
