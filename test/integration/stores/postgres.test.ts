import { afterAll } from 'vitest';
import { createPostgresStore } from '../../../server/orders/stores/postgres.js';
import { describeOrderStoreConformance } from '../../../server/testing/index.js';
import { dropSchema, openPgTarget, uniqueSchema } from './pg-target.js';
import type { PgTarget } from './pg-target.js';

let target: Promise<PgTarget> | undefined;
const open = (): Promise<PgTarget> => (target ??= openPgTarget());

afterAll(async () => {
  if (target) await (await target).end();
});

describeOrderStoreConformance(`PostgreSQL (${process.env.TEST_DATABASE_URL ? 'server' : 'PGlite'})`, async () => {
  const { pool } = await open();
  const schema = uniqueSchema('conf');
  const store = await createPostgresStore({ pool, schema });
  return {
    store,
    async cleanup() {
      await store.close();
      await dropSchema(pool, schema);
    },
  };
});
