/** Identifiers the sandbox hands out. Page ids are unguessable because they grant actions. */
import { randomBytes, randomInt } from 'node:crypto';
import { uuidV7 } from '../uuid-v7.js';
import { timestamp14 } from './wire/format.js';

const ALPHANUMERIC = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function randomCode(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)] ?? 'X';
  return out;
}

/** The second the ids below were issued in, and those ids. */
let issuedSecond = '';
const issued = new Set<string>();

/**
 * e.g. `SBX20260131100000K7Q2ZD`: time-ordered, ≤ 50 characters. Six random characters per
 * second collide once in a while at a few hundred payments a second, and a repeated id would
 * overwrite the other transaction in the ledger, so an id already issued this second is drawn again.
 */
export function newTransactionId(now: Date): string {
  const stamp = timestamp14(now);
  if (stamp !== issuedSecond) {
    issuedSecond = stamp;
    issued.clear();
  }
  let id = `SBX${stamp}${randomCode(6)}`;
  while (issued.has(id)) id = `SBX${stamp}${randomCode(6)}`;
  issued.add(id);
  return id;
}
export const newPageId = (): string => randomBytes(18).toString('base64url');

/** A notification delivery's id. */
export const newNotificationId = (): string => `ntf_${uuidV7()}`;
export const newRecurringId = (): string => `RC${randomCode(14)}`;
export const newTokenId = (): string => `TK${randomCode(22)}`;
export const newRefundReference = (): string => `RF${randomCode(16)}`;
export const newPayerId = (): string => `PY${randomCode(12)}`;
/** `yyyyMMdd-XXXXXX` (payout short_reference_id). */
export const newShortReference = (now: Date): string => `${timestamp14(now).slice(0, 8)}-${randomCode(6)}`;
