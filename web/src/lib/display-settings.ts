import type { PublicSettings } from '@medshare/contracts';
import { DEFAULT_PUBLIC_SETTINGS } from './public-settings.ts';
import { dateTimeFormat } from './date-time-format.ts';

/**
 * An instant as date and time in the configured locale and zone (`usePublicSettings()`); a bad
 * stored locale or zone falls back to the defaults rather than breaking the page.
 */
export function formatDateTime(
  iso: string,
  settings: Pick<PublicSettings, 'displayLocale' | 'displayTimeZone'>,
): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };
  try {
    return dateTimeFormat(settings.displayLocale, { ...options, timeZone: settings.displayTimeZone }).format(date);
  } catch {
    return dateTimeFormat(DEFAULT_PUBLIC_SETTINGS.displayLocale, {
      ...options,
      timeZone: DEFAULT_PUBLIC_SETTINGS.displayTimeZone,
    }).format(date);
  }
}
