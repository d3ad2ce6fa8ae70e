import { PRESETS, type PresetId } from './window-level';

export type ShortcutAction =
  | { type: 'preset'; preset: PresetId }
  | { type: 'mode'; mode: 'windowLevel' | 'zoom' | 'pan' }
  | { type: 'invert' }
  | { type: 'reset' }
  | { type: 'zoom'; factor: number }
  | { type: 'frame'; step: number }
  | { type: 'play' };

/** Keys shown in the help line and in each control's title. */
export const SHORTCUT_HELP =
  '1–5 presets · W window/level · Z zoom · P pan · I invert · R reset · +/− zoom · ←/→ frames · Space play';

/** The viewer's keyboard shortcuts; null for keys it leaves alone. */
export function shortcutFor(key: string): ShortcutAction | null {
  const preset = PRESETS.find((p) => p.key === key);
  if (preset) return { type: 'preset', preset: preset.id };
  switch (key.toLowerCase()) {
    case 'w':
      return { type: 'mode', mode: 'windowLevel' };
    case 'z':
      return { type: 'mode', mode: 'zoom' };
    case 'p':
      return { type: 'mode', mode: 'pan' };
    case 'i':
      return { type: 'invert' };
    case 'r':
      return { type: 'reset' };
    case '+':
    case '=':
      return { type: 'zoom', factor: 1.25 };
    case '-':
    case '_':
      return { type: 'zoom', factor: 0.8 };
    case 'arrowright':
    case 'arrowdown':
      return { type: 'frame', step: 1 };
    case 'arrowleft':
    case 'arrowup':
      return { type: 'frame', step: -1 };
    case ' ':
      return { type: 'play' };
    default:
      return null;
  }
}

/** Cine rates offered; 15 fps is the usual ultrasound review speed. */
export const FPS_OPTIONS = [5, 10, 15, 24, 30] as const;
export const DEFAULT_FPS = 15;
