/**
 * Options of `createAdminRouter`, validated once with zod (unknown options rejected). The admin
 * refuses to exist without staff authentication — the shop's own `authorize` function or the
 * kit's `signIn` — since a staff router open to anyone would let anybody refund the shop's money.
 */
import type { Request, Response } from 'express';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import type { GatewayClient } from '../gateway/client.js';
import type { Logger } from '../logging.js';
import { redactingLogger, silentLogger } from '../logging.js';
import type { KitMetrics } from '../observability/metrics.js';
import type { ReconcileEngine } from '../orders/engine-types.js';
import { resolveSignIn, SIGN_IN_FIXES, signInSchema } from './sign-in/options.js';
import type { ResolvedSignIn, SignInOptions } from './sign-in/options.js';
import { STAFF_STORE_METHODS } from './staff-store.js';
import type { OrderStore } from '../orders/store.js';
import type { AdminStore } from './store.js';
import { createMemoryAdminStore } from './stores/memory.js';

/** Who is acting. `id` is written as the `actor` of every event the admin records. */
export interface Staff {
  id: string;
  name?: string;
}

/** The gateway operations the admin uses. */
export type AdminGatewayClient = Pick<GatewayClient, 'batch' | 'queries' | 'payouts' | 'subscriptions'>;

/** The pieces of a checkout kit the admin works with (`createCheckoutKit` returns all three). */
export interface AdminKit {
  client: AdminGatewayClient;
  engine: ReconcileEngine;
  store: OrderStore;
  /** The checkout kit's admin store: the default `adminStore`, so payout notifications find the payouts staff send. */
  adminStore?: AdminStore;
  /** A checkout kit's context: its notify URL is the default `payoutNotifyUrl`. */
  context?: { urls: { notify(): string } };
  /** A checkout kit's metrics: sign-in refusals are counted there, the dashboard reads notification figures. */
  metrics?: KitMetrics;
}

export interface AdminRouterOptions {
  kit: AdminKit;
  /**
   * The signed-in staff member of this request, or null when nobody is signed in, from the
   * shop's own sign-in. Required unless `signIn` is given (never both).
   */
  authorize?: (req: Request) => Staff | null | Promise<Staff | null>;
  /** The kit's own staff sign-in at `<mount>/login` (see docs/admin.md). Instead of `authorize`. */
  signIn?: SignInOptions;
  /** Where jobs and payouts are kept. Default: memory (jobs cannot be resumed after a restart). */
  adminStore?: AdminStore;
  /** Secret (≥ 32 characters) for CSRF tokens and signed flash messages. */
  csrfSecret: string;
  /** Path the router is mounted at (e.g. "/admin"); default: `req.baseUrl`. */
  mountPath?: string;
  logger?: Logger;
  /** Gateway requests one batch job keeps in flight at once (each up to the operation's limit). Default 2. */
  batchConcurrency?: number;
  /** Called instead of the 401 page for a request without staff, e.g. to redirect to a login page. */
  onUnauthenticated?: (req: Request, res: Response) => void;
  /** Extra origins accepted on POST besides the request's own (e.g. behind a proxy rewriting Host). */
  allowedOrigins?: string[];
  /** Resume interrupted jobs when the router is created (default true). */
  resumeOnStart?: boolean;
  /** `notify_url` sent with every payout. Default: the checkout kit's notify URL, when `kit` is one. */
  payoutNotifyUrl?: string;
}

export interface ResolvedAdminOptions {
  kit: AdminKit;
  /** The shop's authorize; null when `signIn` is used. */
  authorize: NonNullable<AdminRouterOptions['authorize']> | null;
  signIn: ResolvedSignIn | null;
  adminStore: AdminStore;
  csrfSecret: string;
  mountPath: string | undefined;
  logger: Logger;
  batchConcurrency: number;
  onUnauthenticated: AdminRouterOptions['onUnauthenticated'];
  allowedOrigins: Set<string>;
  resumeOnStart: boolean;
  payoutNotifyUrl: string | undefined;
}

const fn = (what: string) => z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', { message: `must be ${what}` });
const withMethods = (...names: string[]) =>
  z.custom<object>(
    (v) => v !== null && typeof v === 'object' && names.every((n) => n in v),
    { message: `must be an object with ${names.join(', ')}` },
  );

const schema = z.strictObject({
  // A whole checkout kit may be passed as it is: only client, engine and store are read.
  kit: z.looseObject({
    client: withMethods('batch', 'queries', 'payouts', 'subscriptions'),
    engine: withMethods('apply', 'confirm', 'record'),
    store: withMethods('get', 'getByOrderNo', 'list', 'listEvents'),
  }),
  authorize: fn('a function (req) => Staff | null').optional(),
  signIn: signInSchema.optional(),
  adminStore: withMethods(
    'createJob', 'getJob', 'updateJobItems', 'setJobStatus', 'listJobs', 'savePayout', 'updatePayout', 'getPayout', 'listPayouts',
    'getPayoutByTransactionId', 'recordNotification', 'listNotifications',
  ).optional(),
  csrfSecret: z.string().min(32, 'must be at least 32 characters'),
  mountPath: z.string().regex(/^\/[A-Za-z0-9/_.-]*$/, 'must be a path starting with /').optional(),
  logger: withMethods('debug', 'info', 'warn', 'error').optional(),
  batchConcurrency: z.int().min(1).max(8).optional(),
  onUnauthenticated: fn('a function (req, res) => void').optional(),
  allowedOrigins: z.array(z.url({ protocol: /^https?$/ })).optional(),
  resumeOnStart: z.boolean().optional(),
  payoutNotifyUrl: z.url({ protocol: /^https?$/ }).optional(),
});

const FIXES: Record<string, string> = {
  authorize: 'pass authorize: (req) => ({ id: "staff-id", name: "Name" }) or null, reading your own staff session; the admin never mounts without it',
  kit: 'pass kit: the object createCheckoutKit() returned (or { client, engine, store })',
  'kit.client': 'pass the gateway client (kit.client)',
  'kit.engine': 'pass the reconcile engine (kit.engine)',
  'kit.store': 'pass the order store (kit.store)',
  adminStore: 'pass createSqliteAdminStore(...), createPostgresAdminStore(...) or leave it out for memory',
  csrfSecret: "generate one with `node -e \"console.log(crypto.randomBytes(32).toString('base64url'))\"`",
  mountPath: 'use the path you mount the router at, e.g. "/admin"',
  logger: 'pass a pino-compatible logger (debug, info, warn, error)',
  batchConcurrency: 'use a whole number from 1 to 8',
  onUnauthenticated: 'pass (req, res) => res.redirect("/login"), or leave it out for a 401 page',
  allowedOrigins: 'pass absolute origins such as "https://shop.example"',
  resumeOnStart: 'use true or false',
  payoutNotifyUrl: 'pass the absolute URL of the checkout kit\'s notify route, e.g. "https://shop.example/checkout/notify"',
  ...SIGN_IN_FIXES,
};

/** The fix for `option` or, failing that, for the nearest enclosing option. */
function fixFor(option: string): string {
  for (let parts = option.split('.'); parts.length > 0; parts = parts.slice(0, -1)) {
    const fix = FIXES[parts.join('.')];
    if (fix !== undefined) return fix;
  }
  return 'see docs/admin.md';
}

export function resolveAdminOptions(input: unknown): ResolvedAdminOptions {
  if (input === null || typeof input !== 'object') {
    throw new ConfigError('(options)', 'must be an object', 'call createAdminRouter({ kit, authorize, csrfSecret })');
  }
  const { authorize, signIn } = input as { authorize?: unknown; signIn?: unknown };
  if (authorize !== undefined && signIn !== undefined) {
    throw new ConfigError('signIn', 'cannot be combined with authorize: staff sign in one way', 'keep authorize (your own sign-in) or signIn (the kit\'s), not both');
  }
  if (signIn === undefined && typeof authorize !== 'function') {
    throw new ConfigError('authorize', 'is required and must be a function: the admin refuses to mount without staff authorisation', `${FIXES.authorize ?? ''}; or pass signIn for the kit's own staff sign-in`);
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.map(String).join('.') ?? '';
    const key = issue?.code === 'unrecognized_keys' ? [path, issue.keys[0] ?? ''].filter((p) => p !== '').join('.') : path;
    const option = key === '' ? '(options)' : key;
    const problem = issue?.code === 'unrecognized_keys' ? 'is not an option of createAdminRouter' : (issue?.message ?? 'is invalid');
    throw new ConfigError(option, problem, fixFor(option));
  }
  const o = input as AdminRouterOptions;
  if (o.signIn !== undefined && o.adminStore !== undefined) {
    const missing = STAFF_STORE_METHODS.filter((m) => typeof o.adminStore?.[m] !== 'function');
    if (missing.length > 0) {
      throw new ConfigError('adminStore', `lacks ${missing.join(', ')}, which signIn needs for accounts and sessions`, 'use createSqliteAdminStore or createPostgresAdminStore, or implement StaffStore (docs/admin.md)');
    }
  }
  const logger = o.logger ? redactingLogger(o.logger) : silentLogger;
  if (o.adminStore !== undefined && o.kit.adminStore !== undefined && o.adminStore !== o.kit.adminStore) {
    // Payout notifications reach the kit, which updates payouts in its own admin store only.
    logger.warn({}, 'admin: adminStore is not the checkout kit\'s adminStore; payout notifications will not update the payouts staff send here');
  }
  if (o.payoutNotifyUrl === undefined && o.kit.context === undefined) {
    // Without a notify_url the gateway never tells the kit how a payout ended.
    logger.warn({}, 'admin: no payoutNotifyUrl and no checkout kit to take it from; payouts are sent without notify_url and a pending one is never settled by notification');
  }
  return {
    kit: { client: o.kit.client, engine: o.kit.engine, store: o.kit.store, ...(o.kit.metrics === undefined ? {} : { metrics: o.kit.metrics }) },
    authorize: o.authorize ?? null,
    signIn: o.signIn === undefined ? null : resolveSignIn(o.signIn),
    // The kit's store by default: payout notifications reach the kit, which finds payouts there.
    adminStore: o.adminStore ?? o.kit.adminStore ?? createMemoryAdminStore(),
    csrfSecret: o.csrfSecret,
    mountPath: o.mountPath?.replace(/\/+$/, ''),
    logger,
    batchConcurrency: o.batchConcurrency ?? 2,
    onUnauthenticated: o.onUnauthenticated,
    allowedOrigins: new Set((o.allowedOrigins ?? []).map((u) => new URL(u).origin)),
    resumeOnStart: o.resumeOnStart ?? true,
    payoutNotifyUrl: o.payoutNotifyUrl ?? o.kit.context?.urls.notify(),
  };
}
