/**
 * The multi-instance example reads its configuration from the environment once, at start-up,
 * and names the variable that is missing or wrong. Needs no server.
 */
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../../examples/multi-instance/server.js';
import { ConfigError } from '../../../server/errors.js';

const ENV = {
  DATABASE_URL: 'postgres://shop@db.internal/shop',
  REDIS_URL: 'redis://cache.internal:6379',
  PUBLIC_URL: 'https://shop.example/checkout',
  CHECKOUT_TOKEN_SECRET: 'x'.repeat(43),
  GATEWAY_BASE_URL: 'https://gateway.example/',
  GATEWAY_MERCHANT_ID: '701001',
  GATEWAY_ACCOUNT_ID: '701001010',
  GATEWAY_SIGN_KEY: 'sign-key',
};

function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    configFromEnv(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('no ConfigError');
}

describe('examples/multi-instance configFromEnv', () => {
  it('builds the configuration every instance shares', () => {
    expect(configFromEnv({ ...ENV, CHECKOUT_SCHEMA: 'shop_checkout', TRUST_PROXY: '10.0.0.0/8' })).toEqual({
      databaseUrl: ENV.DATABASE_URL,
      redisUrl: ENV.REDIS_URL,
      publicUrl: ENV.PUBLIC_URL,
      tokenSecret: ENV.CHECKOUT_TOKEN_SECRET,
      gateway: { baseUrl: ENV.GATEWAY_BASE_URL, merchantId: '701001', accountId: '701001010', signKey: 'sign-key' },
      schema: 'shop_checkout',
      trustProxy: '10.0.0.0/8',
    });
  });

  it('names the variable that is missing or wrong', () => {
    const { DATABASE_URL: _omitted, ...withoutDatabase } = ENV;
    expect(configError(withoutDatabase).option).toBe('DATABASE_URL');
    expect(configError({ ...ENV, REDIS_URL: 'http://cache.internal' }).option).toBe('REDIS_URL');
    expect(configError({ ...ENV, CHECKOUT_TOKEN_SECRET: 'short' }).option).toBe('CHECKOUT_TOKEN_SECRET');
  });
});
