import { expect, test } from 'vitest';
import { fuzz } from './scenarios/fuzz.js';
import { describeFailures } from './support/result.js';
import { REDUCED } from './support/sizes.js';

test('hostile input on every public route: never a 5xx, always a 4xx naming the field, nothing changed', async () => {
  const result = await fuzz(REDUCED);
  expect(describeFailures(result)).toBe('');
  expect(result.runs).toBeGreaterThan(REDUCED.fuzz.casesPerRoute * 40);
}, 300_000);
