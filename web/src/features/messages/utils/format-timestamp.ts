import { dateTimeFormat } from '../../../lib/date-time-format';
import { DEFAULT_PUBLIC_SETTINGS } from '../../../lib/public-settings';

/** Where dates are shown when the server names nothing: the web app's display defaults (lib/public-settings.ts). */
export const DEFAULT_LOCALE = DEFAULT_PUBLIC_SETTINGS.displayLocale;
export const DEFAULT_TIME_ZONE = DEFAULT_PUBLIC_SETTINGS.displayTimeZone;

export type DisplayZone = { locale: string; timeZone: string };

type Ymd = { year: number; month: number; day: number };

/** The calendar day of an instant in a time zone. */
function calendarDay(date: Date, timeZone: string): Ymd {
  const fmt = dateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric' });
  const parts = Object.fromEntries(fmt.formatToParts(date).map((p) => [p.type, p.value]));
  return { year: Number(parts.year), month: Number(parts.month), day: Number(parts.day) };
}

const sameDay = (a: Ymd, b: Ymd) => a.year === b.year && a.month === b.month && a.day === b.day;

/** The day before, by the calendar (month and year ends included), independent of DST. */
function dayBefore({ year, month, day }: Ymd): Ymd {
  const d = new Date(Date.UTC(year, month - 1, day - 1));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** A locale and time zone this browser accepts; anything unknown falls back to the defaults. */
export function safeZone(zone: Partial<DisplayZone> | undefined): DisplayZone {
  const locale = zone?.locale || DEFAULT_LOCALE;
  const timeZone = zone?.timeZone || DEFAULT_TIME_ZONE;
  try {
    dateTimeFormat(locale, { timeZone });
    return { locale, timeZone };
  } catch {
    return { locale: DEFAULT_LOCALE, timeZone: DEFAULT_TIME_ZONE };
  }
}

/**
 * `docs/product.md` › States and transitions: the time if the message is from today, 'Yesterday' if
 * from yesterday, else the date — "today" as the calendar in the configured time zone has it, not
 * the browser's.
 */
export function formatMessageTime(iso: string, zone: DisplayZone, now: Date = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const { locale, timeZone } = zone;
  const day = calendarDay(date, timeZone);
  const today = calendarDay(now, timeZone);
  if (sameDay(day, today)) {
    return dateTimeFormat(locale, { timeZone, hour: 'numeric', minute: '2-digit' }).format(date);
  }
  if (sameDay(day, dayBefore(today))) return 'Yesterday';
  return dateTimeFormat(locale, { timeZone, day: 'numeric', month: 'short', year: 'numeric' }).format(date);
}

/** Date and time in full, for a tooltip and the `<time>` element's accessible title. */
export function formatFullTime(iso: string, zone: DisplayZone): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return dateTimeFormat(zone.locale, {
    timeZone: zone.timeZone,
    dateStyle: 'medium',
    timeStyle: 'short',
  }).format(date);
}
