import { ApiPaths } from '@medshare/contracts/paths';
import { api } from '../../../lib/api-client';

/** The id travels in the body, as the spec's client sends it; the caller is the token's user. */
export function deleteSetting(id: string) {
  return api.delete<null>(`${ApiPaths.settings}/delete`, { body: { id } });
}
