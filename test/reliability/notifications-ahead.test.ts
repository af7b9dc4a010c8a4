import { expect, test } from 'vitest';
import { notificationsAhead } from './scenarios/notifications-ahead.js';
import { describeFailures } from './support/result.js';
import { REDUCED } from './support/sizes.js';

test('notifications ahead of the gateway: with the sweeper off every order still settles; other amounts on paid orders are flagged', async () => {
  const result = await notificationsAhead(REDUCED);
  expect(describeFailures(result)).toBe('');
  expect(result.checks.every((c) => c.tried > 0)).toBe(true);
  expect(result.ordersLost).toBe(0);
}, 120_000);
