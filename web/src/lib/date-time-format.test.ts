import { describe, expect, it } from 'vitest';
import { dateTimeFormat } from './date-time-format';

describe('dateTimeFormat', () => {
  it('builds one formatter per locale and options and formats as the constructor does', () => {
    const options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeZone: 'UTC' };
    const first = dateTimeFormat('en-GB', options);
    expect(dateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' })).toBe(first);
    expect(first.format(new Date(Date.UTC(2026, 11, 6)))).toBe(
      new Intl.DateTimeFormat('en-GB', options).format(new Date(Date.UTC(2026, 11, 6))),
    );
    expect(dateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'Asia/Karachi' })).not.toBe(first);
    expect(dateTimeFormat('en-US', options)).not.toBe(first);
  });

  it('throws for an unknown time zone, every time, keeping nothing for it', () => {
    expect(() => dateTimeFormat('en-GB', { timeZone: 'Mars/Olympus' })).toThrow(RangeError);
    expect(() => dateTimeFormat('en-GB', { timeZone: 'Mars/Olympus' })).toThrow(RangeError);
  });
});
