import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../server/errors.js';
import { resolveAdminOptions } from '../../../server/admin/options.js';
import { createMemoryAdminStore } from '../../../server/admin/stores/memory.js';

const kit = {
  client: { batch: {}, queries: {}, payouts: {}, subscriptions: {} },
  engine: { apply() {}, confirm() {}, record() {} },
  store: { get() {}, getByOrderNo() {}, list() {}, listEvents() {} },
};
const base = { kit, authorize: () => null, csrfSecret: 'x'.repeat(32) };

function configError(input: unknown): ConfigError {
  try {
    resolveAdminOptions(input);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('admin options', () => {
  it('resolves defaults; a whole checkout kit may be passed', () => {
    const resolved = resolveAdminOptions({ ...base, kit: { ...kit, router: () => undefined, sweeper: {} } });
    expect(resolved).toMatchObject({ batchConcurrency: 2, resumeOnStart: true, mountPath: undefined });
    expect(resolved.allowedOrigins.size).toBe(0);
    expect(Object.keys(resolved.kit)).toEqual(['client', 'engine', 'store']);
  });

  it('keeps a given admin store, trims the mount path and normalises origins', () => {
    const adminStore = createMemoryAdminStore();
    const resolved = resolveAdminOptions({ ...base, adminStore, mountPath: '/admin/', allowedOrigins: ['https://shop.example/path'] });
    expect(resolved.adminStore).toBe(adminStore);
    expect(resolved.mountPath).toBe('/admin');
    expect([...resolved.allowedOrigins]).toEqual(['https://shop.example']);
  });

  it.each([
    ['authorize', { ...base, authorize: undefined }],
    ['authorize', { kit, csrfSecret: 'x'.repeat(32) }],
    ['csrfSecret', { ...base, csrfSecret: 'short' }],
    ['kit.engine', { ...base, kit: { ...kit, engine: {} } }],
    ['batchConcurrency', { ...base, batchConcurrency: 0 }],
    ['mountPath', { ...base, mountPath: 'admin' }],
    ['allowedOrigins.0', { ...base, allowedOrigins: ['ftp://x'] }],
    ['adminStore', { ...base, adminStore: {} }],
    ['sessionSecret', { ...base, sessionSecret: 'x' }],
  ])('refuses a bad %s with a ConfigError naming it and a fix', (option, input) => {
    const err = configError(input);
    expect(err.code).toBe('ERR_CONFIG');
    expect(err.option).toBe(option);
    expect(err.fix.length).toBeGreaterThan(10);
  });

  it('refuses something that is not an object', () => {
    expect(configError(null).option).toBe('(options)');
  });
});
