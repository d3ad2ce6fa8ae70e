import { ApiPaths } from '@medshare/contracts/paths';
import type { Message, SendMessageBody } from '@medshare/contracts';
import { api } from '../../../lib/api-client';

export function sendMessage(body: SendMessageBody) {
  return api.post<Message>(ApiPaths.sendMessage, body);
}
