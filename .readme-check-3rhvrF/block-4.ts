// test/my-store.test.ts (run with vitest)
import { createSqliteStore } from 'acquiring-checkout-kit';
import { describeOrderStoreConformance } from 'acquiring-checkout-kit/testing';

describeOrderStoreConformance('my store', async () => {
  const store = createSqliteStore({ path: ':memory:' }); // ← your adapter, empty, one per case
  return { store, cleanup: () => store.close() };
});
