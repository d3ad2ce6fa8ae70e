import { dateTimeFormat } from '../../../lib/date-time-format';

const OPTIONS: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };

/** The formatter for a locale and time zone (kept: lib/date-time-format.ts); a bad one falls back to the default. */
function formatter(locale: string, timeZone: string): Intl.DateTimeFormat {
  try {
    return dateTimeFormat(locale, { ...OPTIONS, timeZone });
  } catch {
    return dateTimeFormat('en-PK', { ...OPTIONS, timeZone: 'Asia/Karachi' });
  }
}

/**
 * Dates in the configured locale and time zone (`docs/architecture.md` › Frontend); a bad setting falls back
 * to the default.
 */
export function formatDateTime(iso: string, locale: string, timeZone: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return formatter(locale, timeZone).format(date);
}
