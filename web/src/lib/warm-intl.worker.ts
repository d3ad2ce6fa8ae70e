/**
 * Started by `warmIntl` (lib/warm-intl.ts): one date formatted here initialises ICU for the whole
 * renderer process, off the main thread. Nothing to keep; the worker ends itself.
 */
new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(0);
postMessage('warm');
close();
