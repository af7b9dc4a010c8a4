/**
 * The start-up mistakes a first integration makes, each a ConfigError with its own code and a
 * fix; the development token secret; the once-a-minute refusal log; the mount comparison.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveKitOptions } from '../../../server/checkout/options.js';
import { mountMismatch } from '../../../server/checkout/mount-check.js';
import { createRefusalLog, REFUSAL_LOG_INTERVAL_MS } from '../../../server/checkout/refusal-log.js';
import { isLocalHost, tokenSecretOrDevelopment } from '../../../server/checkout/start-checks.js';
import { ConfigError, KitError } from '../../../server/errors.js';
import type { Logger } from '../../../server/logging.js';

const SECRET = 'a-token-secret-of-at-least-32-characters!';
const store = { create() {}, get() {}, getByOrderNo() {}, transition() {}, appendEvent() {}, acquireLease() {}, claimOutbox() {}, completeOutbox() {}, failOutbox() {} };
const valid = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  gateway: { baseUrl: 'https://gateway.example', merchantId: '701001', accountId: '701001010', signKey: 'sign-key' },
  publicUrl: 'https://shop.example/checkout',
  tokenSecret: SECRET,
  store,
  ...over,
});
const PROD = { NODE_ENV: 'production' };

function configError(input: unknown, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    resolveKitOptions(input, env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('no ConfigError');
}

function recording(): { logger: Logger; lines: { level: string; obj: Record<string, unknown>; msg: string | undefined }[] } {
  const lines: { level: string; obj: Record<string, unknown>; msg: string | undefined }[] = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg?: string): void => {
    lines.push({ level, obj, msg });
  };
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

describe('start-up ConfigErrors', () => {
  it('a relative publicUrl is ERR_CONFIG_PUBLIC_URL naming the fix', () => {
    const err = configError(valid({ publicUrl: '/checkout' }));
    expect(err.code).toBe('ERR_CONFIG_PUBLIC_URL');
    expect(err.option).toBe('publicUrl');
    expect(err.fix).toContain('absolute https URL where the router is mounted');
    expect(err.message).toMatch(/\[ERR_CONFIG_PUBLIC_URL: docs\/errors\.md#err_config_public_url\]$/);
  });

  it('an http publicUrl in production is ERR_CONFIG_PUBLIC_URL; in development it is fine', () => {
    expect(configError(valid({ publicUrl: 'http://shop.example/checkout' }), PROD).code).toBe('ERR_CONFIG_PUBLIC_URL');
    expect(resolveKitOptions(valid({ publicUrl: 'http://localhost:3000/checkout' }), {}).publicUrl).toBe('http://localhost:3000/checkout');
  });

  it('a publicUrl the gateway cannot reach in production is ERR_CONFIG_NOTIFY_URL', () => {
    for (const host of ['localhost:3000', '127.0.0.1', '192.168.1.20', 'shop.local', '[::1]:8443']) {
      const err = configError(valid({ publicUrl: `https://${host}/checkout` }), PROD);
      expect(err.code, host).toBe('ERR_CONFIG_NOTIFY_URL');
      expect(err.message).toContain('/checkout/notify would never arrive');
    }
    expect(resolveKitOptions(valid(), PROD).production).toBe(true);
  });

  it('no store in production is ERR_CONFIG_STORE; in development the default SQLite file is kept', () => {
    const err = configError(valid({ store: undefined }), PROD);
    expect(err.code).toBe('ERR_CONFIG_STORE');
    expect(err.fix).toContain('createSqliteStore');
    expect(resolveKitOptions(valid({ store: undefined }), {}).store).toBeUndefined();
  });

  it('every error message ends with its row in docs/errors.md', () => {
    expect(new KitError('ERR_ORDER_STATE', 'Order A-1 cannot be captured').message).toBe('Order A-1 cannot be captured [ERR_ORDER_STATE: docs/errors.md#err_order_state]');
    const table = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'errors.md'), 'utf8');
    const codes = readFileSync(join(import.meta.dirname, '..', '..', '..', 'server', 'errors.ts'), 'utf8').match(/'ERR_[A-Z_]+'/g) ?? [];
    for (const code of new Set(codes.map((c) => c.slice(1, -1)))) {
      expect(table, code).toContain(`<a id="${code.toLowerCase()}"></a>\`${code}\``);
    }
  });
});

describe('the development token secret', () => {
  const dir = mkdtempSync(join(tmpdir(), 'token-secret-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('is generated once, kept across starts, and announced loudly each time', () => {
    const path = join(dir, 'data', 'checkout-token-secret');
    const { logger, lines } = recording();
    const first = tokenSecretOrDevelopment(undefined, {}, logger, path);
    expect(typeof first === 'string' && first.length >= 32).toBe(true);
    expect(existsSync(path)).toBe(true);
    expect(tokenSecretOrDevelopment('', {}, logger, path)).toBe(first);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 'warn', obj: { code: 'ERR_CONFIG_TOKEN_SECRET', created: true } });
    expect(lines[1]).toMatchObject({ obj: { created: false } });
    expect(lines[0]?.msg).toContain('DEVELOPMENT secret');
    expect(lines[0]?.msg).toContain('CHECKOUT_TOKEN_SECRET');
    expect(JSON.stringify(lines)).not.toContain(String(first));
  });

  it('is refused with NODE_ENV=production', () => {
    const path = join(dir, 'prod', 'checkout-token-secret');
    const { logger } = recording();
    expect(() => tokenSecretOrDevelopment(undefined, PROD, logger, path)).toThrow(expect.objectContaining({ code: 'ERR_CONFIG_TOKEN_SECRET', option: 'tokenSecret' }) as Error);
    expect(existsSync(path)).toBe(false);
  });

  it('leaves a given secret alone', () => {
    const { logger, lines } = recording();
    expect(tokenSecretOrDevelopment(SECRET, PROD, logger, join(dir, 'never'))).toBe(SECRET);
    expect(lines).toHaveLength(0);
  });
});

describe('the refusal log', () => {
  it('logs a merchant-fixable refusal with the fix at most once a minute per code', () => {
    let now = 1_000_000;
    const { logger, lines } = recording();
    const log = createRefusalLog({ gateway: { baseUrl: 'https://gw.example', merchantId: '701001', accountId: '701001010' } as never, logger }, () => now);
    expect(log('ERR_GATEWAY_BAD_SIGNATURE', { orderNo: 'A-1' })).toBe(true);
    expect(log('ERR_GATEWAY_BAD_SIGNATURE', { orderNo: 'A-2' })).toBe(false);
    expect(log('ERR_GATEWAY_IP_NOT_ALLOWED', { orderNo: 'A-3' })).toBe(true);
    expect(log('ERR_GATEWAY_INVALID_INPUT', { orderNo: 'A-4' })).toBe(false);
    now += REFUSAL_LOG_INTERVAL_MS - 1;
    expect(log('ERR_GATEWAY_BAD_SIGNATURE', { orderNo: 'A-5' })).toBe(false);
    now += 1;
    expect(log('ERR_GATEWAY_BAD_SIGNATURE', { orderNo: 'A-6' })).toBe(true);
    expect(lines.map((l) => [l.level, l.obj.code, l.obj.orderNo])).toEqual([
      ['error', 'ERR_GATEWAY_BAD_SIGNATURE', 'A-1'],
      ['error', 'ERR_GATEWAY_IP_NOT_ALLOWED', 'A-3'],
      ['error', 'ERR_GATEWAY_BAD_SIGNATURE', 'A-6'],
    ]);
    expect(lines[0]?.msg).toContain('check signKey for account 701001010 (merchant 701001) at https://gw.example');
  });
});

describe('mountMismatch', () => {
  const req = (baseUrl: string, host: string, forwarded?: string) => ({ baseUrl, hostname: host.split(':')[0] ?? '', headers: { host, ...(forwarded === undefined ? {} : { 'x-forwarded-host': forwarded }) } });

  it('is null where publicUrl says, behind a proxy too', () => {
    expect(mountMismatch('https://shop.example/checkout', req('/checkout', 'shop.example'))).toBeNull();
    expect(mountMismatch('https://shop.example/checkout/', req('/checkout', '127.0.0.1:3000', 'shop.example'))).toBeNull();
  });

  it('names both paths and hosts, and the fix', () => {
    expect(mountMismatch('https://shop.example/checkout', req('/pay', 'shop.example'))).toMatchObject({
      expected: { path: '/checkout', host: 'shop.example' }, actual: { path: '/pay', host: 'shop.example' },
    });
    expect(mountMismatch('https://shop.example/checkout', req('/pay', 'shop.example'))?.fix).toContain("app.use('/checkout', kit.router)");
    expect(mountMismatch('https://shop.example/checkout', req('/checkout', 'other.example'))?.fix).toContain('https://other.example/checkout');
  });

  it('judges hosts the gateway cannot reach', () => {
    expect(['localhost', 'a.localhost', '10.1.2.3', '172.16.0.1', '192.168.0.1', '169.254.1.1', '[::1]', 'printer.local'].every(isLocalHost)).toBe(true);
    expect(['shop.example', '8.8.8.8', '172.32.0.1'].some(isLocalHost)).toBe(false);
  });
});
