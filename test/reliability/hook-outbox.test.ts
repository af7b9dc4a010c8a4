import { expect, test } from 'vitest';
import { hookOutbox } from './scenarios/hook-outbox.js';
import { describeFailures } from './support/result.js';
import { REDUCED } from './support/sizes.js';

test('hook outbox: a shop SIGKILLed between commit and hook delivers every hook after the restart, none twice per eventId but for the calls the kill cut before their removal', async () => {
  const result = await hookOutbox(REDUCED);
  expect(describeFailures(result)).toBe('');
  expect(result.runs).toBeGreaterThanOrEqual(REDUCED.outbox.orders);
  expect(result.ordersLost).toBe(0);
}, 240_000);
