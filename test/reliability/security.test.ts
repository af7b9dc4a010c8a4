import { expect, test } from 'vitest';
import { security } from './scenarios/security.js';
import { describeFailures } from './support/result.js';
import { REDUCED } from './support/sizes.js';

test('security: CSP, CSRF, rate limit, admin guards, tokens, redirects and card data', async () => {
  const result = await security(REDUCED);
  expect(describeFailures(result)).toBe('');
  expect(result.figures['forms checked for CSRF']).toBeGreaterThan(5);
}, 120_000);
