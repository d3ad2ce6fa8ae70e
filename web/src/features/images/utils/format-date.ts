import { formatDateTime as formatWithSettings } from '../../../lib/display-settings';

/**
 * `lib/display-settings.ts` formatDateTime for the image components, which are handed the configured
 * locale and time zone apart (`docs/architecture.md` › Frontend): one rule for a bad setting and a bad
 * date everywhere.
 */
export const formatDateTime = (iso: string, locale: string, timeZone: string): string =>
  formatWithSettings(iso, { displayLocale: locale, displayTimeZone: timeZone });
