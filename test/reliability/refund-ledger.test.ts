import { expect, test } from 'vitest';
import { refundLedger } from './scenarios/refund-ledger.js';
import { describeFailures } from './support/result.js';
import { REDUCED } from './support/sizes.js';

test('refund ledger: parallel staff refunds and replayed notifications, the shop total equals the gateway total on every order', async () => {
  const result = await refundLedger(REDUCED);
  expect(describeFailures(result)).toBe('');
  expect(result.runs).toBe(REDUCED.refunds.orders * REDUCED.refunds.parallel);
  expect(result.ordersLost).toBe(0);
}, 120_000);
