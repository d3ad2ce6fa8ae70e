import { KnownSettings, SettingMessages } from '@medshare/contracts/settings';

/** Seeded settings drive the application: the server refuses to delete or rename them (409). */
export function isKnownSetting(name: string): boolean {
  return Object.hasOwn(KnownSettings, name.toLowerCase());
}

/** These change how dates are shown, so the page re-reads the display settings after saving one. */
export function isDisplaySetting(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === 'display_locale' || lower === 'display_time_zone';
}

export const KNOWN_UNDELETABLE = SettingMessages.knownUndeletable;
export const KNOWN_RENAME = SettingMessages.knownRename;
