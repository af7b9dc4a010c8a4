/**
 * The gateway's notification retry schedule: first retry after about 1 s, then exponentially
 * growing gaps with jitter, each gap capped at 12 hours, giving up after about 36 hours. The
 * sandbox multiplies every gap by `notifyTimeScale` so tests can run the whole schedule quickly.
 */

export const FIRST_RETRY_MS = 1_000;
export const MAX_GAP_MS = 12 * 60 * 60 * 1_000;
export const GIVE_UP_AFTER_MS = 36 * 60 * 60 * 1_000;
/** ±20 % jitter so many failing deliveries do not retry in lock step. */
export const JITTER = 0.2;

/** The nominal (jitter-free) gap before retry number `retry` (1-based). */
export function nominalGapMs(retry: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** (retry - 1), MAX_GAP_MS);
}

/**
 * The gap before retry number `retry` (1-based), in unscaled milliseconds, or null once the
 * nominal schedule would pass the give-up horizon.
 */
export function retryGapMs(retry: number, random: () => number = Math.random): number | null {
  let elapsed = 0;
  for (let r = 1; r <= retry; r++) elapsed += nominalGapMs(r);
  if (elapsed > GIVE_UP_AFTER_MS) return null;
  const jittered = nominalGapMs(retry) * (1 - JITTER + 2 * JITTER * random());
  return Math.min(Math.round(jittered), MAX_GAP_MS);
}

/** Every nominal gap of the schedule, for documentation and the inspector. */
export function nominalSchedule(): number[] {
  const gaps: number[] = [];
  for (let retry = 1; retryGapMs(retry, () => 0.5) !== null; retry++) gaps.push(nominalGapMs(retry));
  return gaps;
}
