// The settings page validates each known setting with its schema: it loads zod for them.
// eslint-disable-next-line @typescript-eslint/no-restricted-imports
import { KnownSettings, SettingMessages } from '@medshare/contracts/settings';

/** Seeded settings drive the application: the server refuses to delete or rename them (409). */
export function isKnownSetting(name: string): boolean {
  return Object.hasOwn(KnownSettings, name.toLowerCase());
}

export const KNOWN_UNDELETABLE = SettingMessages.knownUndeletable;
export const KNOWN_RENAME = SettingMessages.knownRename;
