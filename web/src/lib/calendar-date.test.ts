import { afterEach, describe, expect, it } from 'vitest';
import { formatCalendarDate, todayAsCalendarDate } from './calendar-date';

const originalTz = process.env.TZ;

describe('formatCalendarDate', () => {
  afterEach(() => {
    process.env.TZ = originalTz;
  });

  it.each(['Asia/Karachi', 'America/Los_Angeles', 'Pacific/Kiritimati', 'Pacific/Pago_Pago'])(
    "shows '1990-01-01' as 1 January 1990 when the browser runs in %s",
    (tz) => {
      process.env.TZ = tz;
      expect(formatCalendarDate('1990-01-01', 'en-PK')).toBe('1 January 1990');
    },
  );

  it('gives the same text in Asia/Karachi and America/Los_Angeles for a date of birth', () => {
    process.env.TZ = 'Asia/Karachi';
    const karachi = formatCalendarDate('1988-02-29', 'en-PK');
    process.env.TZ = 'America/Los_Angeles';
    expect(formatCalendarDate('1988-02-29', 'en-PK')).toBe(karachi);
    expect(karachi).toBe('29 February 1988');
  });

  it('shows a date of the years 0001–0099 in that year, not in the 1900s', () => {
    expect(
      formatCalendarDate('0050-03-01', 'en-GB', { year: 'numeric', month: 'long', day: 'numeric', era: 'short' }),
    ).toBe('1 March 50 AD');
  });

  it('answers null for a missing or malformed value, so the screen can show N/A', () => {
    expect(formatCalendarDate(null, 'en-PK')).toBeNull();
    expect(formatCalendarDate('', 'en-PK')).toBeNull();
    expect(formatCalendarDate('01/01/1990', 'en-PK')).toBeNull();
  });
});

describe('todayAsCalendarDate', () => {
  it("gives the browser's own day, padded, late in the evening too (not UTC's)", () => {
    expect(todayAsCalendarDate(new Date(2026, 2, 4, 23, 59))).toBe('2026-03-04');
    expect(todayAsCalendarDate(new Date(2026, 0, 5, 0, 1))).toBe('2026-01-05');
  });
});
