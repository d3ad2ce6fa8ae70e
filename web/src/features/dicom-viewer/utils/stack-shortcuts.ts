import { type ShortcutAction, shortcutFor } from './shortcuts';

/** The stack viewer's keys: the single viewer's, plus scroll mode and jumps through the stack. */
export type StackShortcutAction =
  | Exclude<ShortcutAction, { type: 'mode' }>
  | { type: 'mode'; mode: 'windowLevel' | 'zoom' | 'pan' | 'scroll' }
  | { type: 'slice'; to: 'first' | 'last' };

/** Slices a Page Up / Page Down moves by. */
export const PAGE_STEP = 10;

export const STACK_SHORTCUT_HELP =
  '↑/↓ or ←/→ slices · PgUp/PgDn 10 slices · Home/End first/last · Space play · 1–5 presets · S scroll · W window/level · Z zoom · P pan · I invert · R reset · +/− zoom';

export function stackShortcutFor(key: string): StackShortcutAction | null {
  switch (key.toLowerCase()) {
    case 's':
      return { type: 'mode', mode: 'scroll' };
    case 'pagedown':
      return { type: 'frame', step: PAGE_STEP };
    case 'pageup':
      return { type: 'frame', step: -PAGE_STEP };
    case 'home':
      return { type: 'slice', to: 'first' };
    case 'end':
      return { type: 'slice', to: 'last' };
    default:
      return shortcutFor(key);
  }
}
