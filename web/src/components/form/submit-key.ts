import type { KeyboardEvent } from 'react';

/**
 * Enter in a multi-line input that sends its form (a message, a setting's description); Shift+Enter
 * breaks the line, and an IME composing a character keeps its Enter.
 */
export function isSubmitKey(
  event: Pick<KeyboardEvent, 'key' | 'shiftKey'> & { nativeEvent?: { isComposing?: boolean } },
) {
  return event.key === 'Enter' && !event.shiftKey && !event.nativeEvent?.isComposing;
}
