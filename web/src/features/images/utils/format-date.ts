/**
 * Dates in the configured locale and time zone (`docs/architecture.md` › Frontend); a bad setting falls back
 * to the default.
 */
export function formatDateTime(iso: string, locale: string, timeZone: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };
  try {
    return new Intl.DateTimeFormat(locale, { ...options, timeZone }).format(date);
  } catch {
    return new Intl.DateTimeFormat('en-PK', { ...options, timeZone: 'Asia/Karachi' }).format(date);
  }
}
