import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createSqliteStore } from '../../../server/orders/stores/sqlite.js';
import { describeOrderStoreConformance } from '../../../server/testing/index.js';

const dir = mkdtempSync(join(tmpdir(), 'order-store-sqlite-'));
let count = 0;

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describeOrderStoreConformance('SQLite', () => {
  count += 1;
  const path = join(dir, `conformance-${count}.sqlite`);
  const store = createSqliteStore({ path });
  return Promise.resolve({
    store,
    async cleanup() {
      await store.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    },
  });
});
