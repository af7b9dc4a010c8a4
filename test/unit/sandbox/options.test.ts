import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../server/errors.js';
import { resolveSandboxOptions, SANDBOX_DEFAULT_SIGN_KEY } from '../../../server/sandbox/options.js';

describe('sandbox options', () => {
  it('defaults to one account from the environment and auto capture', () => {
    const o = resolveSandboxOptions({ env: {} });
    expect(o.accounts).toEqual([{ merchantId: '701001', accountId: '701001010', signKey: SANDBOX_DEFAULT_SIGN_KEY, captureMode: 'auto' }]);
    expect(o.notifyTimeScale).toBe(1);
    expect([...o.queryAllowedIps]).toEqual(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
    expect(o.sqlitePath).toBeUndefined();
  });

  it('reads GATEWAY_* and SANDBOX_CAPTURE_MODE', () => {
    const o = resolveSandboxOptions({ env: { GATEWAY_MERCHANT_ID: '123', GATEWAY_ACCOUNT_ID: '123001', GATEWAY_SIGN_KEY: 'k', SANDBOX_CAPTURE_MODE: 'manual' } });
    expect(o.accounts[0]).toEqual({ merchantId: '123', accountId: '123001', signKey: 'k', captureMode: 'manual' });
  });

  it.each([
    [{ notifyTimeScale: 0 }, 'notifyTimeScale'],
    [{ accounts: [] }, 'accounts'],
    [{ accounts: [{ merchantId: '12345678', accountId: '1', signKey: 'k' }] }, 'accounts.0.merchantId'],
    [{ publicBaseUrl: 'ftp://x' }, 'publicBaseUrl'],
    [{ captureMode: 'later' }, 'captureMode'],
    [{ colour: 'blue' }, '(options)'],
    [{ env: { SANDBOX_CAPTURE_MODE: 'sometimes' } }, 'SANDBOX_CAPTURE_MODE'],
    [{ env: { GATEWAY_MERCHANT_ID: 'far-too-long' } }, 'GATEWAY_MERCHANT_ID'],
    [{ accounts: [{ merchantId: '1', accountId: '1', signKey: 'k' }, { merchantId: '1', accountId: '1', signKey: 'j' }] }, 'accounts.1'],
  ])('refuses %o naming %s', (options, option) => {
    let error: unknown;
    try {
      resolveSandboxOptions(options);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).option).toBe(option);
  });
});
