import { expect, test } from 'vitest';
import { load } from './scenarios/load.js';
import { describeFailures } from './support/result.js';
import { REDUCED } from './support/sizes.js';

test('load: concurrent shoppers on every journey, no 5xx, no lost or stuck order, no paid order left unpaid', async () => {
  const result = await load(REDUCED);
  expect(describeFailures(result)).toBe('');
  expect(result.runs).toBeGreaterThan(REDUCED.load.shoppers);
  expect(result.ordersLost).toBe(0);
  expect(result.doubleCharges).toBe(0);
  // The end state is judged against the gateway's record, on every order of the run.
  const unpaid = result.checks.find((c) => c.name.startsWith('no payment the gateway took is left unpaid'));
  expect(unpaid?.tried).toBeGreaterThanOrEqual(result.runs);
  expect(result.figures['requests the shop answered']).toBeGreaterThan(result.runs);
}, 120_000);
