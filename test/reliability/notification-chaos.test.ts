import { expect, test } from 'vitest';
import { notificationChaos } from './scenarios/notification-chaos.js';
import { describeFailures } from './support/result.js';
import { REDUCED } from './support/sizes.js';

test('notification chaos: duplicated, shuffled and forged notifications settle every order exactly once', async () => {
  const result = await notificationChaos(REDUCED);
  expect(describeFailures(result)).toBe('');
  expect(result.checks.every((c) => c.tried > 0)).toBe(true);
  expect(result.ordersLost).toBe(0);
  expect(result.doubleCharges).toBe(0);
}, 120_000);
