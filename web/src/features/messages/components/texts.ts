/** The screen's words (`docs/product.md` › Messages, verbatim where it gives them). */
export const MessagesTexts = {
  title: 'Messages',
  chats: 'Chats',
  noChats: 'No chats available',
  noMessages: 'No messages yet',
  selectChat: 'Select a chat to start messaging',
  noUsers: 'No users found',
  selectUserTitle: 'Select User to Chat',
  searchLabel: 'Search by name or email',
  sendMessageTitle: 'Send Message',
  inputPlaceholder: 'Type a message...',
  you: 'You',
  refresh: 'Refresh chats',
  back: 'Back to chats',
  send: 'Send message',
  loadOlder: 'Load older messages',
  chatsFailed: 'Chats could not be loaded.',
  threadFailed: 'Messages could not be loaded.',
  usersFailed: 'Users could not be loaded.',
  sendFailed: 'Message could not be sent. Please try again.',
} as const;

/** Toasts of the messaging area appear bottom-left (`docs/product.md` › Messages and errors). */
export const TOAST_POSITION = 'bottom-left' as const;
