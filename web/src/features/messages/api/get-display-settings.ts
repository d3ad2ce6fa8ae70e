import { ApiPaths } from '@medshare/contracts/paths';
import type { PublicSettings } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

/** Locale and time zone the administrator chose for dates (no sign-in needed). */
export function getDisplaySettings(signal?: AbortSignal) {
  return api.get<PublicSettings>(`${ApiPaths.settings}/public`, { signal, auth: false });
}
