import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../server/errors.js';
import { createGatewayClient, type GatewayClientOptions } from '../../../server/gateway/client.js';
import { backoffDelay } from '../../../server/gateway/core.js';

const base: GatewayClientOptions = { baseUrl: 'https://gateway.example', merchantId: '701001', accountId: '701001010', signKey: 'k' };

const optionOf = (options: Record<string, unknown>): string => {
  try {
    createGatewayClient(options as unknown as GatewayClientOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).option;
  }
  return '(accepted)';
};

describe('createGatewayClient options', () => {
  it('accepts a minimal configuration and exposes every family', () => {
    const client = createGatewayClient(base);
    expect(Object.keys(client).sort()).toEqual(['batch', 'close', 'notifications', 'optimise', 'payments', 'payouts', 'queries', 'subscriptions', 'updateOrders']);
  });

  it('names the bad option', () => {
    expect(optionOf({ ...base, baseUrl: 'gateway.example' })).toBe('baseUrl');
    expect(optionOf({ ...base, baseUrl: 'ftp://gateway.example' })).toBe('baseUrl');
    expect(optionOf({ ...base, merchantId: '12345678' })).toBe('merchantId');
    expect(optionOf({ ...base, accountId: '' })).toBe('accountId');
    expect(optionOf({ ...base, signKey: '' })).toBe('signKey');
    expect(optionOf({ ...base, verifyKeys: [''] })).toBe('verifyKeys');
    expect(optionOf({ ...base, timeoutMs: 0 })).toBe('timeoutMs');
    expect(optionOf({ ...base, batchConcurrency: 1.5 })).toBe('batchConcurrency');
    expect(optionOf({ ...base, readRetries: { attempts: 0, baseDelayMs: 10 } })).toBe('readRetries.attempts');
    expect(optionOf({ ...base, recipes: { refunds: [] } })).toBe('recipes.refunds');
    expect(optionOf({ ...base, signkey: 'typo' })).toBe('signkey');
    expect(optionOf({ ...base, requireReplySignatures: 'yes' })).toBe('requireReplySignatures');
    expect(optionOf({ ...base, payoutAmountUnit: 'cents' })).toBe('payoutAmountUnit');
    expect(optionOf({ ...base, requireReplySignatures: true, payoutAmountUnit: 'minor' })).toBe('(accepted)');
  });

  it('never puts the sign key in a configuration error', () => {
    expect.assertions(2);
    try {
      createGatewayClient({ ...base, signKey: 'super-secret', timeoutMs: -1 });
    } catch (error) {
      expect(JSON.stringify(error)).not.toContain('super-secret');
      expect((error as Error).message).not.toContain('super-secret');
    }
  });
});

describe('read retry backoff', () => {
  it('grows exponentially with bounded jitter', () => {
    const policy = { attempts: 5, baseDelayMs: 100 };
    expect([1, 2, 3].map((n) => backoffDelay(policy, n, () => 0))).toEqual([50, 100, 200]);
    expect([1, 2, 3].map((n) => backoffDelay(policy, n, () => 1))).toEqual([100, 200, 400]);
  });
});
