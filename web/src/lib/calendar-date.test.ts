import { afterEach, describe, expect, it } from 'vitest';
import { formatCalendarDate } from './calendar-date';

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

  it('answers null for a missing or malformed value, so the screen can show N/A', () => {
    expect(formatCalendarDate(null, 'en-PK')).toBeNull();
    expect(formatCalendarDate('', 'en-PK')).toBeNull();
    expect(formatCalendarDate('01/01/1990', 'en-PK')).toBeNull();
  });
});
