import { expect, test } from 'vitest';
import { missedChanges } from './scenarios/missed-changes.js';
import { describeFailures } from './support/result.js';
import { REDUCED } from './support/sizes.js';

test('missed changes: portal refunds and chargebacks with every notification lost, raced with staff refunds, revisits and late deliveries; the shop ends equal to the gateway (SQLite, and PostgreSQL as two instances)', async () => {
  const result = await missedChanges(REDUCED);
  expect(describeFailures(result)).toBe('');
  // Once on SQLite, and once more on PostgreSQL when a server is given.
  expect(result.runs).toBe(REDUCED.missed.orders * (process.env.TEST_DATABASE_URL ? 2 : 1));
  expect(result.figures['portal refunds made']).toBeGreaterThan(0);
  expect(result.figures['revisit passes during the race']).toBeGreaterThan(0);
  expect(result.ordersLost).toBe(0);
}, 120_000);
