/**
 * Version 7 UUIDs (RFC 9562): the first 48 bits are Unix milliseconds, the rest random. New ids
 * sort after old ones, so a row keyed by one lands at the end of its primary-key index instead
 * of on a random page of it: one page fewer to write per insert once a table is large.
 */
import { randomUUID } from 'node:crypto';

export function uuidV7(now: number = Date.now()): string {
  const time = now.toString(16).padStart(12, '0').slice(-12);
  // randomUUID is `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`: keep its random part and its variant.
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randomUUID().slice(15)}`;
}
