/**
 * The mistakes a developer is likely to make on the first start, each refused (or, in
 * development, worked around loudly) with a code and a fix: no token secret, no store in
 * production, a publicUrl the gateway cannot reach. docs/checkout.md lists them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import pino from 'pino';
import { ConfigError } from '../errors.js';
import { redactingLogger, type Logger } from '../logging.js';

/** Where a development token secret is kept between restarts (next to the default SQLite store). */
export const DEV_TOKEN_SECRET_PATH = 'data/checkout-token-secret';

let defaultLoggerInstance: Logger | undefined;

/**
 * The logger when the shop passes none: pino writing warnings and errors to stderr, behind the
 * kit's redaction. A kit that fails silently hides a wrong sign key in the events table.
 */
export function defaultLogger(): Logger {
  defaultLoggerInstance ??= redactingLogger(pino({ level: 'warn', base: { name: 'acquiring-checkout-kit' } }, pino.destination({ dest: 2, sync: true })));
  return defaultLoggerInstance;
}

const unset = (secret: unknown): boolean => secret === undefined || secret === '' || (Array.isArray(secret) && secret.length === 0);

/**
 * The token secret to use: the one given, or — outside production only — one generated on the
 * first start and kept in `path`, with a warning each start so nobody ships it unknowingly.
 */
export function tokenSecretOrDevelopment(secret: string | string[] | undefined, env: NodeJS.ProcessEnv, logger: Logger, path = DEV_TOKEN_SECRET_PATH): string | string[] {
  if (!unset(secret)) return secret as string | string[];
  if (env.NODE_ENV === 'production') {
    throw new ConfigError(
      'tokenSecret',
      'is not set, and NODE_ENV is production',
      "set CHECKOUT_TOKEN_SECRET (or tokenSecret) to a random secret of at least 32 characters, the same on every instance: `node -e \"console.log(crypto.randomBytes(32).toString('base64url'))\"`",
      'ERR_CONFIG_TOKEN_SECRET',
    );
  }
  let kept = existsSync(path) ? readFileSync(path, 'utf8').trim() : '';
  const created = kept.length < 32;
  if (created) {
    kept = randomBytes(32).toString('base64url');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${kept}\n`, { mode: 0o600 });
  }
  logger.warn(
    { code: 'ERR_CONFIG_TOKEN_SECRET', path, created },
    `*** No tokenSecret given: using a DEVELOPMENT secret ${created ? 'generated now and ' : ''}kept in ${path}. ` +
      'Set CHECKOUT_TOKEN_SECRET before going live (refused when NODE_ENV=production). See docs/errors.md#err_config_token_secret ***',
  );
  return kept;
}

/** Hosts the gateway cannot reach from the internet: loopback, private ranges, *.local, *.localhost. */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host === '::1' || host === '0.0.0.0') return true;
  const v4 = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(host);
  if (v4 === null) return host.startsWith('fc') || host.startsWith('fd') || host.startsWith('fe80:');
  const [a, b] = [Number(v4[1]), Number(v4[2])];
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
}

/** Production demands an https publicUrl the gateway can reach (its notify URL is built from it). */
export function checkPublicUrlForProduction(publicUrl: string): void {
  const url = new URL(publicUrl);
  if (url.protocol !== 'https:') {
    throw new ConfigError('publicUrl', `is ${publicUrl}, http with NODE_ENV=production`, 'use the https address where kit.router is mounted, e.g. "https://shop.example/checkout"', 'ERR_CONFIG_PUBLIC_URL');
  }
  if (isLocalHost(url.hostname)) {
    throw new ConfigError(
      'publicUrl',
      `points at ${url.hostname}, which the gateway cannot reach: its notifications to ${publicUrl}/notify would never arrive`,
      'set publicUrl to the public https address of the shop (behind your proxy or load balancer)',
      'ERR_CONFIG_NOTIFY_URL',
    );
  }
}

/** Without a store the kit writes SQLite in the working directory: fine on a laptop, a surprise in production. */
export function checkStoreForProduction(hasStore: boolean, env: NodeJS.ProcessEnv): void {
  if (hasStore || env.NODE_ENV !== 'production') return;
  throw new ConfigError(
    'store',
    'is not set, and NODE_ENV is production',
    "pass a store: createSqliteStore({ path: '/var/lib/shop/checkout.sqlite' }) on one machine, createPostgresStore({ pool }) for several instances",
    'ERR_CONFIG_STORE',
  );
}
