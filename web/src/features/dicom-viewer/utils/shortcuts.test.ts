import { describe, expect, it } from 'vitest';
import { shortcutFor } from './shortcuts';

describe('viewer shortcuts', () => {
  it('maps digits to presets and letters to tools, case-insensitively', () => {
    expect(shortcutFor('2')).toEqual({ type: 'preset', preset: 'lung' });
    expect(shortcutFor('1')).toEqual({ type: 'preset', preset: 'default' });
    expect(shortcutFor('Z')).toEqual({ type: 'mode', mode: 'zoom' });
    expect(shortcutFor('i')).toEqual({ type: 'invert' });
    expect(shortcutFor('r')).toEqual({ type: 'reset' });
  });

  it('steps frames with the arrows, plays with space, and ignores other keys', () => {
    expect(shortcutFor('ArrowRight')).toEqual({ type: 'frame', step: 1 });
    expect(shortcutFor('ArrowLeft')).toEqual({ type: 'frame', step: -1 });
    expect(shortcutFor(' ')).toEqual({ type: 'play' });
    expect(shortcutFor('+')).toEqual({ type: 'zoom', factor: 1.25 });
    expect(shortcutFor('x')).toBeNull();
    expect(shortcutFor('9')).toBeNull();
  });
});
