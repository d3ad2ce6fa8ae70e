import type { Message, ReadEvent } from '@medshare/contracts';
import { current } from '@reduxjs/toolkit';
import { useMemo } from 'react';
import { useAppDispatch } from '../../../lib/store';
import { chatApi } from '../api/get-chat';
import { chatListApi, flattenChats } from '../api/get-chat-list';
import { applyMessageToChats, applyReadReceipt, mergeMessages, partnerOf } from '../utils/merge-messages';

/**
 * What the live stream (use-message-stream.ts) brings, written into the server-state cache in
 * place: the thread with that partner (when it is loaded) and the chat list, so the screen updates
 * without asking the server again.
 */
export function useLiveCache(meId: string) {
  const dispatch = useAppDispatch();
  return useMemo(
    () => ({
      /**
       * A new (or replayed) message. `readingPartnerId` is the chat open and in view: its messages
       * do not count as unread. Answers false when the partner is not in the list yet: only a
       * reload knows their name.
       */
      message(m: Message, readingPartnerId: string | null): boolean {
        dispatch(
          chatApi.util.updateQueryData('getChat', partnerOf(m, meId), (thread) => {
            const newest = thread.pages[0];
            if (newest) newest.messages = mergeMessages(current(newest.messages), [m]);
          }),
        );
        let known = true;
        dispatch(
          chatListApi.util.updateQueryData('getChatList', undefined, (list) => {
            const chats = flattenChats(current(list.pages));
            const update = applyMessageToChats(chats, m, meId, readingPartnerId);
            known = update.known;
            if (update.chats === chats) return;
            // The moved chat goes to the top: the whole list sits on the first page, later pages
            // keep only their "more" flag (the next load asks the server again anyway).
            list.pages = list.pages.map((page, index) => ({ ...page, chats: index === 0 ? update.chats : [] }));
          }),
        );
        return known;
      },

      /** A read receipt: my messages the partner read get the read time; a chat I read elsewhere has nothing unread. */
      read(read: ReadEvent) {
        if (read.senderId === meId) {
          dispatch(
            chatApi.util.updateQueryData('getChat', read.readerId, (thread) => {
              for (const page of thread.pages) page.messages = applyReadReceipt(current(page.messages), meId, read);
            }),
          );
        }
        if (read.readerId === meId) {
          dispatch(
            chatListApi.util.updateQueryData('getChatList', undefined, (list) => {
              for (const page of list.pages) {
                for (const entry of page.chats) if (entry.id === read.senderId) entry.unreadCount = 0;
              }
            }),
          );
        }
      },
    }),
    [dispatch, meId],
  );
}
