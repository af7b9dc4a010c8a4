import { expect, test } from 'vitest';
import { load } from './scenarios/load.js';
import { describeFailures } from './support/result.js';
import { REDUCED } from './support/sizes.js';

test('load: concurrent shoppers on every journey, no 5xx, no lost or stuck order', async () => {
  const result = await load(REDUCED);
  expect(describeFailures(result)).toBe('');
  expect(result.runs).toBeGreaterThan(REDUCED.load.shoppers);
  expect(result.ordersLost).toBe(0);
  expect(result.doubleCharges).toBe(0);
}, 120_000);
