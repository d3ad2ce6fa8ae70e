import { ApiPaths } from '@medshare/contracts/paths';
import type { AppSetting, UpdateSettingBody } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

export function updateSetting(id: string, body: Pick<UpdateSettingBody, 'name' | 'value' | 'description'>) {
  return api.put<AppSetting>(`${ApiPaths.settings}/edit/${encodeURIComponent(id)}`, body);
}
