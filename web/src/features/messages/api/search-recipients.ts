import type { MessageRecipient } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

export const RECIPIENTS_PAGE_SIZE = 20;

/** People the signed-in user may write to, by part of a name or e-mail. */
export function searchRecipients(search: string, signal?: AbortSignal) {
  return api.get<MessageRecipient[]>('/message/users', {
    query: { search: search.trim() || undefined, page: 1, limit: RECIPIENTS_PAGE_SIZE },
    signal,
  });
}
