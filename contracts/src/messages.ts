import { z } from 'zod';
import { RoleNameSchema, pageQuerySchema, uuid } from './common.ts';
import { MESSAGE_MAX_LENGTH } from './constants.ts';
/** Defined without zod, for the web to import alone (docs/architecture.md › Frontend, "Start-up"). */
export { MESSAGE_MAX_LENGTH } from './constants.ts';

/** Messages have database-ordered numeric ids: keyset paging and stream replay compare them. */
export const MessageIdSchema = z.number().int().positive().describe('Message id; larger ids are newer');

/** A message id as it arrives in a query string or the Last-Event-ID header. */
export const MessageIdTextSchema = z
  .string()
  .trim()
  .regex(/^\d{1,15}$/, 'Must be a message id')
  .transform(Number);

export const MessageSchema = z.object({
  id: MessageIdSchema,
  senderId: uuid(),
  recipientId: uuid(),
  content: z.string(),
  createAt: z.string().describe('ISO 8601 time the message was sent'),
  readAt: z.string().nullable().describe('ISO 8601 time the recipient marked it read, or null'),
});
export type Message = z.infer<typeof MessageSchema>;

export const SendMessageBodySchema = z.strictObject({
  recipientId: uuid('Recipient must be a user id'),
  content: z
    .string('Message is required')
    .trim()
    .min(1, 'Message cannot be empty')
    .max(MESSAGE_MAX_LENGTH, `Message must be at most ${MESSAGE_MAX_LENGTH} characters`),
});
export type SendMessageBody = z.infer<typeof SendMessageBodySchema>;

export const ChatPartnerParamSchema = z.object({ userId: uuid('Must be a user id') });

export const LastMessageSchema = z.object({
  id: MessageIdSchema,
  content: z.string(),
  createAt: z.string(),
  senderId: uuid(),
});

/** One conversation partner in the chat list. */
export const ChatListEntrySchema = z.object({
  id: uuid().describe('The partner user id'),
  firstname: z.string(),
  lastname: z.string(),
  role: RoleNameSchema,
  lastMessage: LastMessageSchema,
  unreadCount: z.number().int().min(0),
});
export type ChatListEntry = z.infer<typeof ChatListEntrySchema>;

export const ChatListQuerySchema = pageQuerySchema(50, 100);

export const CHAT_PAGE_DEFAULT = 50;
export const CHAT_PAGE_MAX = 200;

/** Keyset paging of a thread: the newest `limit` messages, or those older than `before`. */
export const ChatQuerySchema = z.object({
  before: MessageIdTextSchema.optional().describe('Only messages with a smaller id (load older)'),
  limit: z.coerce.number().int().min(1).max(CHAT_PAGE_MAX).default(CHAT_PAGE_DEFAULT),
});
export type ChatQuery = z.infer<typeof ChatQuerySchema>;

export const ChatCursorSchema = z.object({
  limit: z.number().int(),
  hasOlder: z.boolean().describe('More, older messages exist'),
  nextBefore: MessageIdSchema.nullable().describe('Pass as `before` to load the next older page'),
});

/** A thread page: `data` is oldest to newest (ready to render); `cursor` pages backwards. */
export const ChatResponseSchema = z.object({
  success: z.literal(true),
  message: z.string().optional(),
  data: z.array(MessageSchema),
  cursor: ChatCursorSchema,
});

export const MarkReadResponseDataSchema = z.object({
  marked: z.number().int().min(0).describe('Messages marked read by this call'),
  unreadCount: z.number().int().min(0).describe('Unread messages left in this chat'),
  totalUnread: z.number().int().min(0).describe('Unread messages left over all chats'),
});
export type MarkReadResponseData = z.infer<typeof MarkReadResponseDataSchema>;

export const MessageRecipientSchema = z.object({
  id: uuid(),
  firstname: z.string(),
  lastname: z.string(),
  email: z
    .string()
    .nullable()
    .describe(
      'Null for callers without users:read (patients) unless they already share a conversation or an image with this person',
    ),
  role: RoleNameSchema,
});
export type MessageRecipient = z.infer<typeof MessageRecipientSchema>;

export const MessageUsersQuerySchema = pageQuerySchema(20, 50).extend({
  search: z
    .string()
    .trim()
    .max(100)
    .optional()
    .describe('Part of a first name, last name, full name or e-mail (e-mail only where the caller may see it)'),
});

export const StreamQuerySchema = z.object({
  since: MessageIdTextSchema.optional().describe(
    'Replay messages newer than this id (alternative to the Last-Event-ID header)',
  ),
});

/** Payload of the stream's `read` event. */
export const ReadEventSchema = z.object({
  readerId: uuid().describe('Who read'),
  senderId: uuid().describe('Whose messages were read'),
  upToId: MessageIdSchema,
  readAt: z.string(),
});
export type ReadEvent = z.infer<typeof ReadEventSchema>;

export const MessageTexts = {
  sent: 'Message sent',
  markedRead: 'Messages marked as read',
  recipientNotFound: 'Recipient not found',
  chatNotFound: 'Chat not found',
  selfMessage: 'You cannot send a message to yourself',
  tooManyStreams: 'Too many open message streams for this account',
} as const;
