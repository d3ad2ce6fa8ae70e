import { useEffect, useState } from 'react';
import { getDisplaySettings } from '../api/get-display-settings';
import { DEFAULT_LOCALE, DEFAULT_TIME_ZONE, safeZone, type DisplayZone } from '../utils/format-timestamp';

let cached: Promise<DisplayZone> | undefined;

function loadZone(): Promise<DisplayZone> {
  cached ??= getDisplaySettings()
    .then((r) => safeZone({ locale: r.data.displayLocale, timeZone: r.data.displayTimeZone }))
    .catch(() => {
      // Offline or an older server: the seeded defaults, and ask again next time.
      cached = undefined;
      return { locale: DEFAULT_LOCALE, timeZone: DEFAULT_TIME_ZONE };
    });
  return cached;
}

/** The configured locale and time zone for dates (GET /api/appsetting/public), once per page load. */
export function useDisplayZone(): DisplayZone {
  const [zone, setZone] = useState<DisplayZone>({ locale: DEFAULT_LOCALE, timeZone: DEFAULT_TIME_ZONE });
  useEffect(() => {
    let live = true;
    void loadZone().then((z) => {
      if (live) setZone(z);
    });
    return () => {
      live = false;
    };
  }, []);
  return zone;
}

/** A clock that ticks each minute, so 'today' turns into 'Yesterday' on a screen left open overnight. */
export function useMinuteClock(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}
