const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * One `Intl.DateTimeFormat` per locale and options, kept for the page's life: building one costs far
 * more than formatting with it (a message list or a row of cards built one per date, a few ms each on
 * a slowed phone), and the app uses a handful of locale, zone and option sets. Throws as the
 * constructor does (an unknown locale or time zone is a RangeError); a failed one is not kept.
 */
export function dateTimeFormat(locale: string | undefined, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale ?? ''}\u0000${JSON.stringify(options)}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, options);
    formats.set(key, format);
  }
  return format;
}
