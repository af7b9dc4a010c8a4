import { describe, expect, it } from 'vitest';
import { GIVE_UP_AFTER_MS, MAX_GAP_MS, nominalSchedule, retryGapMs } from '../../../server/sandbox/retry.js';

describe('notification retry schedule', () => {
  it('starts at about one second and doubles', () => {
    expect(retryGapMs(1, () => 0.5)).toBe(1_000);
    expect(retryGapMs(2, () => 0.5)).toBe(2_000);
    expect(retryGapMs(5, () => 0.5)).toBe(16_000);
  });

  it('jitters within ±20 %', () => {
    expect(retryGapMs(3, () => 0)).toBe(3_200);
    expect(retryGapMs(3, () => 1)).toBe(4_800);
  });

  it('caps every gap at 12 hours and gives up within about 36 hours', () => {
    const gaps = nominalSchedule();
    expect(Math.max(...gaps)).toBe(MAX_GAP_MS);
    const total = gaps.reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(GIVE_UP_AFTER_MS);
    expect(total).toBeGreaterThan(GIVE_UP_AFTER_MS - MAX_GAP_MS);
    expect(retryGapMs(gaps.length + 1)).toBeNull();
    for (let retry = 1; retry <= gaps.length; retry++) expect(retryGapMs(retry, () => 1)).toBeLessThanOrEqual(MAX_GAP_MS);
  });
});
