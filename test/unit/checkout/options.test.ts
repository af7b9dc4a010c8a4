import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../server/errors.js';
import { silentLogger } from '../../../server/logging.js';
import { OPTION_DEFAULTS, resolveKitOptions } from '../../../server/checkout/options.js';

const SECRET = 'x'.repeat(40);
const valid = (): Record<string, unknown> => ({
  gateway: { baseUrl: 'https://gateway.example/', merchantId: '701001', accountId: '701001010', signKey: 'sign-key-1' },
  publicUrl: 'https://shop.example/checkout/',
  tokenSecret: SECRET,
  website: 'shop.example',
});

function configError(input: unknown, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    resolveKitOptions(input, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

function withOption(path: string, value: unknown): Record<string, unknown> {
  const options = valid();
  const keys = path.split('.');
  let target = options;
  for (const key of keys.slice(0, -1)) {
    target[key] = { ...(target[key] as Record<string, unknown> | undefined) };
    target = target[key] as Record<string, unknown>;
  }
  const last = keys.at(-1)!;
  if (value === undefined) Reflect.deleteProperty(target, last);
  else target[last] = value;
  return options;
}

describe('createCheckoutKit options', () => {
  it('resolves defaults for a minimal configuration', () => {
    const o = resolveKitOptions(valid(), {});
    expect(o.publicUrl).toBe('https://shop.example/checkout');
    expect(o.tokenSecrets).toEqual([SECRET]);
    expect(o.methods).toEqual(['hosted', 'card', 'apm']);
    expect(o.defaultMethod).toBe('hosted');
    expect(o.threeDS).toBe('do3DS');
    expect(o.confirmNotifications).toBe(true);
    expect(o.sweeper).toEqual(OPTION_DEFAULTS.sweeper);
    expect(o.rateLimit).toEqual({ ...OPTION_DEFAULTS.rateLimit, store: undefined });
    expect(o.gateway.verifyKeys).toEqual([]);
    expect(o.gateway.timeoutMs).toBe(30_000);
    expect(o.hooks).toEqual({});
    expect(o.store).toBeUndefined();
    expect(o.production).toBe(false);
  });

  it('defaults website to the host of publicUrl and defaultMethod to the first method without hosted', () => {
    const o = resolveKitOptions({ ...withOption('website', undefined), methods: ['card', 'apm'] }, {});
    expect(o.website).toBe('shop.example');
    expect(o.defaultMethod).toBe('card');
  });

  it('wraps the shop logger so it redacts', () => {
    const lines: unknown[] = [];
    const logger = { ...silentLogger, info: (obj: Record<string, unknown>) => lines.push(obj) };
    resolveKitOptions({ ...valid(), logger }, {}).logger.info({ card: '4242424242424242', cvv: '123' });
    expect(JSON.stringify(lines)).not.toContain('4242424242424242');
    expect(JSON.stringify(lines)).not.toContain('123');
  });

  const cases: [string, unknown, string, RegExp][] = [
    ['gateway', undefined, 'gateway', /is required. Fix: pass gateway/],
    ['gateway.baseUrl', undefined, 'gateway.baseUrl', /required/],
    ['gateway.baseUrl', 'gateway.example', 'gateway.baseUrl', /absolute/],
    ['gateway.merchantId', '', 'gateway.merchantId', /merchant_id/],
    ['gateway.merchantId', '12345678', 'gateway.merchantId', /at most 7/],
    ['gateway.accountId', undefined, 'gateway.accountId', /account_id/],
    ['gateway.signKey', '', 'gateway.signKey', /sign_key/],
    ['gateway.verifyKeys', [''], 'gateway.verifyKeys.0', /previous sign keys/],
    ['gateway.timeoutMs', 10, 'gateway.timeoutMs', /milliseconds/],
    ['gateway.jsonContentType', true, 'gateway.jsonContentType', /media type/],
    ['gateway.jsonContentType', 'json', 'gateway.jsonContentType', /media type/],
    ['gateway.requireReplySignatures', 'yes', 'gateway.requireReplySignatures', /refuse gateway replies/],
    ['gateway.payoutAmountUnit', 'cents', 'gateway.payoutAmountUnit', /minor|major/],
    ['gateway.recipes', { authorise: [] }, 'gateway.recipes.authorise', /operation names/],
    ['publicUrl', undefined, 'publicUrl', /required/],
    ['publicUrl', '/checkout', 'publicUrl', /absolute https URL/],
    ['publicUrl', 'https://shop.example/checkout?x=1', 'publicUrl', /absolute https URL/],
    ['tokenSecret', undefined, 'tokenSecret', /randomBytes\(32\)/],
    ['tokenSecret', 'short', 'tokenSecret', /crypto\.randomBytes\(32\)\.toString\('base64url'\)/],
    ['tokenSecret', [], 'tokenSecret', /at least 32 characters/],
    ['tokenSecret', [SECRET, 'short'], 'tokenSecret.1', /at least 32 characters/],
    ['store', { get: () => null }, 'store', /OrderStore/],
    ['hooks', { onPaid: 'yes' }, 'hooks.onPaid', /functions/],
    ['website', '', 'website', /registered with the gateway/],
    ['methods', [], 'methods', /non-empty list/],
    ['methods', ['card', 'card'], 'methods', /distinct/],
    ['methods', ['paypal'], 'methods.0', /hosted, card, apm/],
    ['defaultMethod', 'wire', 'defaultMethod', /enabled methods/],
    ['threeDS', 'yes', 'threeDS', /do3DS/],
    ['confirmNotifications', 'true', 'confirmNotifications', /true/],
    ['rateLimit', 5, 'rateLimit', /windowMs, limit/],
    ['rateLimit.windowMs', 5, 'rateLimit.windowMs', /at least 1000/],
    ['rateLimit.limit', 0, 'rateLimit.limit', /at least 1/],
    ['rateLimit.store', {}, 'rateLimit.store', /express-rate-limit Store/],
    ['sweeper.enabled', 1, 'sweeper.enabled', /true or false/],
    ['sweeper.intervalMs', 1.5, 'sweeper.intervalMs', /whole number/],
    ['sweeper.stuckAfterMs', -1, 'sweeper.stuckAfterMs', /whole number/],
    ['sweeper.expireAfterMs', 0, 'sweeper.expireAfterMs', /larger than/],
    ['sweeper.leaseMs', 10, 'sweeper.leaseMs', /at least 1000/],
    ['sweeper.batchSize', 101, 'sweeper.batchSize', /1 to 100/],
    ['sweeper.subscriptionScanLimit', 0, 'sweeper.subscriptionScanLimit', /1 to 100000/],
    ['logger', console.log, 'logger', /pino-compatible/],
    ['client', {}, 'client', /createGatewayClient/],
    ['fetch', 'fetch', 'fetch', /fetch-compatible/],
  ];
  it.each(cases)('%s = %j → ConfigError naming %s with a fix', (path, value, option, fix) => {
    const err = configError(withOption(path, value));
    // A publicUrl that is not an absolute URL has its own code in the error table.
    expect(err.code).toBe(path === 'publicUrl' ? 'ERR_CONFIG_PUBLIC_URL' : 'ERR_CONFIG');
    expect(err.option).toBe(option);
    expect(err.message).toMatch(fix);
    expect(err.fix.length).toBeGreaterThan(10);
    expect(err.message).toContain(`"${option}"`);
  });

  it('rejects a defaultMethod that is not among methods', () => {
    const err = configError({ ...valid(), methods: ['card'], defaultMethod: 'hosted' });
    expect(err.option).toBe('defaultMethod');
    expect(err.message).toContain('card');
  });

  it('rejects expireAfterMs not larger than stuckAfterMs', () => {
    const err = configError({ ...valid(), sweeper: { stuckAfterMs: 60_000, expireAfterMs: 60_000 } });
    expect(err.option).toBe('sweeper.expireAfterMs');
  });

  it('takes the revisit round\'s window in days beyond a timer\'s limit, and refuses a negative limit', () => {
    const days120 = 120 * 24 * 3_600_000;
    expect(resolveKitOptions({ ...valid(), sweeper: { revisitWithinMs: days120, revisitLimit: 0 } }, {}).sweeper).toMatchObject({ revisitWithinMs: days120, revisitLimit: 0, revisitEveryMs: 3_600_000 });
    const err = configError({ ...valid(), sweeper: { revisitLimit: -1 } });
    expect(err.option).toBe('sweeper.revisitLimit');
    expect(err.fix).toContain('0 (off)');
    expect(configError({ ...valid(), sweeper: { revisitEveryMs: 10 } }).option).toBe('sweeper.revisitEveryMs');
  });

  it('rejects a token secret equal to the gateway sign key', () => {
    const err = configError({ ...withOption('gateway.signKey', SECRET) });
    expect(err.option).toBe('tokenSecret');
  });

  it('demands https for publicUrl and gateway.baseUrl in production', () => {
    const prod = { NODE_ENV: 'production' };
    expect(configError({ ...valid(), publicUrl: 'http://shop.example/checkout' }, prod).option).toBe('publicUrl');
    expect(configError(withOption('gateway.baseUrl', 'http://gateway.example/'), prod).option).toBe('gateway.baseUrl');
    expect(resolveKitOptions({ ...valid(), publicUrl: 'http://localhost:3000/checkout' }, {}).publicUrl).toBe('http://localhost:3000/checkout');
    // Production also wants a store of its own (ERR_CONFIG_STORE, test/unit/checkout/start-checks.test.ts).
    const store = Object.fromEntries(['create', 'get', 'getByOrderNo', 'transition', 'appendEvent', 'acquireLease', 'claimOutbox', 'completeOutbox', 'failOutbox'].map((name) => [name, () => undefined]));
    expect(resolveKitOptions({ ...valid(), store }, prod).production).toBe(true);
  });

  it('rejects unknown options at every level and suggests the likely spelling', () => {
    const top = configError({ ...valid(), tokenSecrets: [SECRET] });
    expect(top.option).toBe('tokenSecrets');
    expect(top.fix).toContain('did you mean "tokenSecret"?');
    const nested = configError(withOption('gateway.signkey', 'k'));
    expect(nested.option).toBe('gateway.signkey');
    expect(nested.fix).toContain('did you mean "signKey"?');
    const hook = configError({ ...valid(), hooks: { onPayed: () => undefined } });
    expect(hook.option).toBe('hooks.onPayed');
    expect(hook.fix).toContain('did you mean "onPaid"?');
    const far = configError({ ...valid(), somethingElse: true });
    expect(far.fix).toMatch(/^remove it/);
    expect(configError({ ...valid(), sweeper: { every: 5 } }).option).toBe('sweeper.every');
    expect(configError({ ...valid(), rateLimit: { max: 5 } }).option).toBe('rateLimit.max');
  });

  it('rejects a non-object', () => {
    expect(configError(undefined).option).toBe('(options)');
    expect(configError('options').option).toBe('(options)');
  });

  it('never puts a secret into the error', () => {
    const err = configError({ ...withOption('gateway.signKey', 'top-secret-sign-key'), tokenSecret: 'short-secret-value' });
    expect(JSON.stringify(err.toJSON()) + err.message).not.toContain('short-secret-value');
    expect(JSON.stringify(err.toJSON()) + err.message).not.toContain('top-secret-sign-key');
  });
});
