import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../server/errors.js';
import {
  BIRTH_DATE_RE, formatDateTimeSpace, formatGatewayTimestamp, formatIsoDate, formatIsoWithOffset, ISO_WITH_OFFSET_RE,
  parseGatewayTimestamp,
} from '../../../server/gateway/dates.js';

const at = new Date(Date.UTC(2026, 0, 31, 9, 5, 7));

describe('gateway dates', () => {
  it('writes every gateway shape in UTC', () => {
    expect(formatGatewayTimestamp(at)).toBe('20260131090507');
    expect(formatIsoDate(at)).toBe('2026-01-31');
    expect(formatDateTimeSpace(at)).toBe('2026-01-31 09:05:07');
    expect(formatIsoWithOffset(at)).toBe('2026-01-31T09:05:07+00:00');
    expect(ISO_WITH_OFFSET_RE.test(formatIsoWithOffset(at))).toBe(true);
  });

  it('reads 14-digit timestamps back', () => {
    expect(parseGatewayTimestamp('20260131090507').getTime()).toBe(at.getTime());
  });

  it('refuses malformed and impossible timestamps', () => {
    for (const bad of ['2026013109050', '2026-01-31 09:05', '20260230120000', '20261301000000', '20260131250000']) {
      expect(() => parseGatewayTimestamp(bad, 'refund_date'), bad).toThrow(ValidationError);
    }
  });

  it('matches the authorise birth_date shape', () => {
    expect(BIRTH_DATE_RE.test('31-01-1990')).toBe(true);
    expect(BIRTH_DATE_RE.test('1990-01-31')).toBe(false);
  });
});
