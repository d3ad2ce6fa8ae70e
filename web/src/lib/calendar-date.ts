import { dateTimeFormat } from './date-time-format';

/**
 * A calendar date ('YYYY-MM-DD', e.g. a date of birth) in the given locale. The date is built at
 * UTC midnight and formatted in UTC, so no browser or display time zone can move it to the day
 * before or after (`new Date('1990-01-01')` in Los Angeles is 31 Dec 1989 local time).
 */
export function formatCalendarDate(
  value: string | null | undefined,
  locale: string,
  options: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'long', year: 'numeric' },
): string | null {
  const match = value ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
  if (!match) return null;
  const [, y, m, d] = match;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: that reads the years 0–99 as 1900–1999.
  date.setUTCFullYear(Number(y), Number(m) - 1, Number(d));
  try {
    return dateTimeFormat(locale, { ...options, timeZone: 'UTC' }).format(date);
  } catch {
    // An unknown locale in the settings must not blank the page.
    return dateTimeFormat(undefined, { ...options, timeZone: 'UTC' }).format(date);
  }
}

/** Today in the browser's time zone as 'YYYY-MM-DD': the latest date a date-of-birth input offers. */
export function todayAsCalendarDate(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
