import type { PublicSettings } from '@medshare/contracts';
import { ApiPaths } from '@medshare/contracts/paths';
import { useEffect, useState } from 'react';
import { api } from './api-client.ts';

/** DESIGN §12 defaults, used until (or if) the server's public settings arrive. */
export const DEFAULT_DISPLAY_SETTINGS: PublicSettings = {
  displayLocale: 'en-PK',
  displayTimeZone: 'Asia/Karachi',
  maxUploadMb: 10,
};

let cached: Promise<PublicSettings> | null = null;

/** Locale and time zone for dates; read once per page load, again after `forgetDisplaySettings()`. */
export function getDisplaySettings(): Promise<PublicSettings> {
  cached ??= api
    .get<PublicSettings>(`${ApiPaths.settings}/public`, { auth: false })
    .then((result) => ({ ...DEFAULT_DISPLAY_SETTINGS, ...result.data }))
    .catch(() => {
      cached = null;
      return DEFAULT_DISPLAY_SETTINGS;
    });
  return cached;
}

/** After an admin changes display_locale or display_time_zone, the next read asks again. */
export function forgetDisplaySettings(): void {
  cached = null;
}

/** The server's display settings; the defaults until they arrive. `version` re-reads them. */
export function useDisplaySettings(version = 0): PublicSettings {
  const [settings, setSettings] = useState<PublicSettings>(DEFAULT_DISPLAY_SETTINGS);
  useEffect(() => {
    let live = true;
    void getDisplaySettings().then((value) => {
      if (live) setSettings(value);
    });
    return () => {
      live = false;
    };
  }, [version]);
  return settings;
}

/**
 * An instant as date and time in the configured locale and zone; a bad stored locale or zone
 * falls back to the defaults rather than breaking the page.
 */
export function formatDateTime(
  iso: string,
  settings: Pick<PublicSettings, 'displayLocale' | 'displayTimeZone'>,
): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };
  try {
    return new Intl.DateTimeFormat(settings.displayLocale, { ...options, timeZone: settings.displayTimeZone }).format(
      date,
    );
  } catch {
    return new Intl.DateTimeFormat(DEFAULT_DISPLAY_SETTINGS.displayLocale, {
      ...options,
      timeZone: DEFAULT_DISPLAY_SETTINGS.displayTimeZone,
    }).format(date);
  }
}
