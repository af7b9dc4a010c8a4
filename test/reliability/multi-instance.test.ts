import { expect, test } from 'vitest';
import { multiInstance, TEST_DATABASE_URL } from './scenarios/multi-instance.js';
import { describeFailures } from './support/result.js';
import { REDUCED } from './support/sizes.js';

test.skipIf(!TEST_DATABASE_URL)('two shop processes on one PostgreSQL database: one transition and one hook call per fact', async () => {
  const result = await multiInstance(REDUCED);
  expect(describeFailures(result)).toBe('');
  expect(result.ordersLost).toBe(0);
  expect(result.doubleCharges).toBe(0);
}, 180_000);

test.runIf(!TEST_DATABASE_URL)('two shop processes on PostgreSQL: SKIPPED without TEST_DATABASE_URL', async () => {
  const result = await multiInstance(REDUCED);
  expect(result.skipped).toMatch(/TEST_DATABASE_URL/);
});
