import { ApiPaths } from '@medshare/contracts/paths';
import type { AppSetting, CreateSettingBody } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

/** The spec's payload shape: `{ setting: { name, value, description } }`. */
export function addSetting(setting: CreateSettingBody['setting']) {
  return api.post<AppSetting>(`${ApiPaths.settings}/add`, { setting });
}
