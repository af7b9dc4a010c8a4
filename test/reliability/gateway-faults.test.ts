import { expect, test } from 'vitest';
import { gatewayFaults } from './scenarios/gateway-faults.js';
import { describeFailures } from './support/result.js';
import { REDUCED } from './support/sizes.js';

test('gateway faults: typed errors, nothing sent twice, every order settles to the ledger', async () => {
  const result = await gatewayFaults(REDUCED);
  expect(describeFailures(result)).toBe('');
  expect(result.runs).toBe(30);
  expect(result.ordersLost).toBe(0);
  expect(result.doubleCharges).toBe(0);
}, 120_000);
