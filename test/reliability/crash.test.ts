import { expect, test } from 'vitest';
import { crash } from './scenarios/crash.js';
import { describeFailures } from './support/result.js';
import { REDUCED } from './support/sizes.js';

test('crash: a SIGKILLed shop restarts on the same SQLite file with no order lost and everything settled', async () => {
  const result = await crash(REDUCED);
  expect(describeFailures(result)).toBe('');
  expect(result.runs).toBe(REDUCED.crash.checkouts);
  expect(result.ordersLost).toBe(0);
  expect(result.doubleCharges).toBe(0);
}, 180_000);
