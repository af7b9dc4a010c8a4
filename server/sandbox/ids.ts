/** Identifiers the sandbox hands out. Page ids are unguessable because they grant actions. */
import { randomBytes, randomInt } from 'node:crypto';
import { formatGatewayTimestamp } from '../gateway/dates.js';

const ALPHANUMERIC = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function randomCode(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)] ?? 'X';
  return out;
}

/** e.g. `SBX20260131100000K7Q2ZD`: time-ordered, unique enough for a sandbox, ≤ 50 characters. */
export const newTransactionId = (now: Date): string => `SBX${formatGatewayTimestamp(now)}${randomCode(6)}`;
export const newPageId = (): string => randomBytes(18).toString('base64url');
export const newRecurringId = (): string => `RC${randomCode(14)}`;
export const newTokenId = (): string => `TK${randomCode(22)}`;
export const newRefundReference = (): string => `RF${randomCode(16)}`;
export const newPayerId = (): string => `PY${randomCode(12)}`;
/** `yyyyMMdd-XXXXXX` (payout short_reference_id). */
export const newShortReference = (now: Date): string => `${formatGatewayTimestamp(now).slice(0, 8)}-${randomCode(6)}`;
