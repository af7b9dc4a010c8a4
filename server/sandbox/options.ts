/**
 * createSandbox options, validated once with zod. Anything wrong is a ConfigError naming the
 * option and the fix. Defaults come from the environment so `npx acquiring-checkout-kit sandbox` needs no code.
 */
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { redactingLogger, silentLogger, type Logger } from '../logging.js';
import type { CaptureMode, SandboxAccount } from './types.js';
import type { PayoutAmountUnit } from './wire/format.js';
import { RECIPES, SIGNED_MESSAGES, type Recipes, type SignedMessage } from './wire/signature.js';

/** The sandbox-only sign key used when none is configured. Never use it with a real gateway. */
export const SANDBOX_DEFAULT_SIGN_KEY = 'sandbox-sign-key-not-secret';
export const SANDBOX_DEFAULT_MERCHANT_ID = '701001';
export const SANDBOX_DEFAULT_ACCOUNT_ID = '701001010';
export const LOOPBACK_IPS: readonly string[] = ['127.0.0.1', '::1', '::ffff:127.0.0.1'];

const captureModeSchema = z.enum(['auto', 'manual']);

const accountSchema = z.strictObject({
  merchantId: z.string().regex(/^[0-9A-Za-z]{1,7}$/, 'must be 1 to 7 letters or digits'),
  accountId: z.string().regex(/^[0-9A-Za-z]{1,10}$/, 'must be 1 to 10 letters or digits'),
  signKey: z.string().min(1, 'must not be empty'),
  captureMode: captureModeSchema.optional(),
});

const loggerSchema = z.custom<Logger>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    ['debug', 'info', 'warn', 'error'].every((level) => typeof (value as Record<string, unknown>)[level] === 'function'),
  'must have debug, info, warn and error methods',
);

const recipePartSchema = z.union([z.string(), z.strictObject({ each: z.string(), field: z.string() })]);

export const sandboxOptionsSchema = z.strictObject({
  accounts: z.array(accountSchema).min(1, 'must list at least one account').optional(),
  captureMode: captureModeSchema.optional(),
  publicBaseUrl: z.url({ protocol: /^https?$/ }).optional(),
  notifyTimeScale: z.number().positive().max(1000).optional(),
  /** Per-attempt timeout of a notification POST, in real milliseconds. */
  notifyTimeoutMs: z.number().int().positive().optional(),
  sqlitePath: z.string().min(1).optional(),
  queryAllowedIps: z.array(z.string()).optional(),
  logger: loggerSchema.optional(),
  recipes: z.partialRecord(z.enum(SIGNED_MESSAGES as [SignedMessage, ...SignedMessage[]]), z.array(recipePartSchema)).optional(),
  /**
   * How payout `payment_amount` / `source_amount` digits are read (the unit is not published):
   * whole major units (default) or minor units. Must match the client's `payoutAmountUnit`.
   */
  payoutAmountUnit: z.enum(['minor', 'major']).optional(),
  /**
   * Query replies (/v1/retrievalTrans) carry no encryption_data, as the published query sample;
   * true echoes the request's, as the other read and the batch replies do.
   */
  echoQuerySignature: z.boolean().optional(),
  /** Where defaults are read from; `process.env` unless given (tests pass their own). */
  env: z.record(z.string(), z.string().optional()).optional(),
});

export type SandboxOptions = z.input<typeof sandboxOptionsSchema>;

export interface ResolvedSandboxOptions {
  accounts: SandboxAccount[];
  publicBaseUrl: string | undefined;
  notifyTimeScale: number;
  notifyTimeoutMs: number;
  sqlitePath: string | undefined;
  queryAllowedIps: Set<string>;
  logger: Logger;
  recipes: Recipes;
  payoutAmountUnit: PayoutAmountUnit;
  echoQuerySignature: boolean;
}

function fail(path: PropertyKey[], message: string): never {
  const option = path.length === 0 ? '(options)' : path.map(String).join('.');
  throw new ConfigError(option, message, 'see docs/sandbox.md for every option and its allowed values');
}

export function resolveSandboxOptions(input: unknown = {}): ResolvedSandboxOptions {
  const parsed = sandboxOptionsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    fail(issue?.path ?? [], issue?.message ?? 'invalid');
  }
  const options = parsed.data;
  const env = options.env ?? process.env;
  const envMode = env.SANDBOX_CAPTURE_MODE;
  if (envMode !== undefined && envMode !== '' && envMode !== 'auto' && envMode !== 'manual') {
    throw new ConfigError('SANDBOX_CAPTURE_MODE', `"${envMode}" is not a capture mode`, 'set it to auto or manual');
  }
  const captureMode: CaptureMode = options.captureMode ?? (envMode === 'manual' ? 'manual' : 'auto');
  const accounts = (
    options.accounts ?? [
      {
        merchantId: env.GATEWAY_MERCHANT_ID || SANDBOX_DEFAULT_MERCHANT_ID,
        accountId: env.GATEWAY_ACCOUNT_ID || SANDBOX_DEFAULT_ACCOUNT_ID,
        signKey: env.GATEWAY_SIGN_KEY || SANDBOX_DEFAULT_SIGN_KEY,
      },
    ]
  ).map((a) => ({ merchantId: a.merchantId, accountId: a.accountId, signKey: a.signKey, captureMode: a.captureMode ?? captureMode }));
  if (options.accounts === undefined) {
    // Environment values get the same checks as accounts given in code.
    const check = accountSchema.safeParse(accounts[0]);
    if (!check.success) {
      const field = String(check.error.issues[0]?.path[0] ?? '');
      const name = ({ merchantId: 'GATEWAY_MERCHANT_ID', accountId: 'GATEWAY_ACCOUNT_ID' } as Record<string, string>)[field] ?? 'GATEWAY_SIGN_KEY';
      throw new ConfigError(name, check.error.issues[0]?.message ?? 'invalid', `set ${name} to a valid value or unset it`);
    }
  }
  const seen = new Set<string>();
  for (const [i, a] of accounts.entries()) {
    const key = `${a.merchantId}/${a.accountId}`;
    if (seen.has(key)) fail(['accounts', i], `duplicate account ${key}`);
    seen.add(key);
  }
  return {
    accounts,
    publicBaseUrl: options.publicBaseUrl?.replace(/\/+$/, ''),
    notifyTimeScale: options.notifyTimeScale ?? 1,
    notifyTimeoutMs: options.notifyTimeoutMs ?? 10_000,
    sqlitePath: options.sqlitePath,
    queryAllowedIps: new Set(options.queryAllowedIps ?? LOOPBACK_IPS),
    logger: options.logger === undefined ? silentLogger : redactingLogger(options.logger),
    recipes: options.recipes === undefined ? RECIPES : { ...RECIPES, ...options.recipes },
    payoutAmountUnit: options.payoutAmountUnit ?? 'major',
    echoQuerySignature: options.echoQuerySignature ?? false,
  };
}
