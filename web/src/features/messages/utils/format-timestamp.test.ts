import { describe, expect, it } from 'vitest';
import { formatMessageTime, safeZone } from './format-timestamp';

const karachi = { locale: 'en-PK', timeZone: 'Asia/Karachi' };
// 2026-03-10 00:30 in Karachi (UTC+5) is still 2026-03-09 in UTC.
const now = new Date('2026-03-09T19:30:00Z');

describe('formatMessageTime', () => {
  it('shows the time for a message from today in the configured time zone', () => {
    const text = formatMessageTime('2026-03-09T19:05:00Z', karachi, now);
    expect(text).toMatch(/12:05/);
    expect(text).not.toBe('Yesterday');
  });

  it("says 'Yesterday' for the previous calendar day there, though it is the same UTC day", () => {
    expect(formatMessageTime('2026-03-09T10:00:00Z', karachi, now)).toBe('Yesterday');
    // 23:59 Karachi on the 9th.
    expect(formatMessageTime('2026-03-09T18:59:00Z', karachi, now)).toBe('Yesterday');
  });

  it('shows the date for anything older', () => {
    expect(formatMessageTime('2026-03-08T10:00:00Z', karachi, now)).toBe('8 Mar 2026');
    expect(formatMessageTime('2025-12-31T10:00:00Z', karachi, now)).toBe('31 Dec 2025');
  });

  it('counts yesterday across a month and a year boundary', () => {
    const newYear = new Date('2026-01-01T08:00:00Z');
    expect(formatMessageTime('2025-12-31T08:00:00Z', karachi, newYear)).toBe('Yesterday');
  });

  it('follows another configured zone and locale', () => {
    const ny = { locale: 'en-US', timeZone: 'America/New_York' };
    // 19:30 UTC is 15:30 in New York on the 9th (EDT starts on the 8th in 2026).
    expect(formatMessageTime('2026-03-09T14:00:00Z', ny, now)).toBe('10:00 AM');
    expect(formatMessageTime('2026-03-09T03:00:00Z', ny, now)).toBe('Yesterday');
    expect(formatMessageTime('2026-03-01T15:00:00Z', ny, now)).toBe('Mar 1, 2026');
  });

  it('answers an empty string for an unreadable time', () => {
    expect(formatMessageTime('not a date', karachi, now)).toBe('');
  });
});

describe('safeZone', () => {
  it('falls back to en-PK and Asia/Karachi for an unknown time zone or nothing', () => {
    expect(safeZone({ locale: 'en-GB', timeZone: 'Mars/Olympus' })).toEqual(karachi);
    expect(safeZone(undefined)).toEqual(karachi);
    expect(safeZone({ locale: 'en-GB', timeZone: 'Europe/London' })).toEqual({
      locale: 'en-GB',
      timeZone: 'Europe/London',
    });
  });
});
