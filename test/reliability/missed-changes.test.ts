import { expect, test } from 'vitest';
import { missedChanges } from './scenarios/missed-changes.js';
import { describeFailures } from './support/result.js';
import { REDUCED } from './support/sizes.js';

test('missed changes: portal refunds and chargebacks with every notification lost, raced with staff refunds, revisits and late deliveries; the shop ends equal to the gateway', async () => {
  const result = await missedChanges(REDUCED);
  expect(describeFailures(result)).toBe('');
  expect(result.runs).toBe(REDUCED.missed.orders);
  expect(result.figures['portal refunds made']).toBeGreaterThan(0);
  expect(result.figures['revisit passes during the race']).toBeGreaterThan(0);
  expect(result.ordersLost).toBe(0);
}, 120_000);
