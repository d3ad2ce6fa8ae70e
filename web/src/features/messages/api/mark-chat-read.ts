import { ApiPaths } from '@medshare/contracts/paths';
import type { MarkReadResponseData } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

/** Marks everything this partner sent me as read; answers what is still unread. */
export function markChatRead(userId: string) {
  return api.post<MarkReadResponseData>(`${ApiPaths.chat}/${encodeURIComponent(userId)}/read`);
}
