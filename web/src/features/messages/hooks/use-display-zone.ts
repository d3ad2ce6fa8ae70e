import { useEffect, useMemo, useState } from 'react';
import { usePublicSettings } from '../../../lib/public-settings';
import { safeZone, type DisplayZone } from '../utils/format-timestamp';

/**
 * The configured locale and time zone for dates, from the app's one cached copy of the public
 * settings (the seeded defaults until it arrives; a new value shows as soon as an admin saves it).
 */
export function useDisplayZone(): DisplayZone {
  const { displayLocale, displayTimeZone } = usePublicSettings();
  return useMemo(
    () => safeZone({ locale: displayLocale, timeZone: displayTimeZone }),
    [displayLocale, displayTimeZone],
  );
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
