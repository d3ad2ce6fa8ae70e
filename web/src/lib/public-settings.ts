import type { PublicSettings } from '@medshare/contracts';
import { useEffect, useState } from 'react';
import { api } from './api-client.ts';

/** DESIGN §12 defaults, used until (or if) the server's public settings arrive. */
export const DEFAULT_PUBLIC_SETTINGS: PublicSettings = {
  displayLocale: 'en-PK',
  displayTimeZone: 'Asia/Karachi',
  maxUploadMb: 10,
};

let cached: Promise<PublicSettings> | null = null;

/** Locale, time zone and upload limit; read once per page load (they change rarely). */
export function getPublicSettings(): Promise<PublicSettings> {
  cached ??= api
    .get<PublicSettings>('/appsetting/public', { auth: false })
    .then((result) => ({ ...DEFAULT_PUBLIC_SETTINGS, ...result.data }))
    .catch(() => {
      cached = null;
      return DEFAULT_PUBLIC_SETTINGS;
    });
  return cached;
}

/** The server's display settings; the defaults until they arrive. */
export function usePublicSettings(): PublicSettings {
  const [settings, setSettings] = useState<PublicSettings>(DEFAULT_PUBLIC_SETTINGS);
  useEffect(() => {
    let live = true;
    void getPublicSettings().then((value) => {
      if (live) setSettings(value);
    });
    return () => {
      live = false;
    };
  }, []);
  return settings;
}
