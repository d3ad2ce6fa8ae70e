import { describe, expect, it } from 'vitest';
import { PAGE_STEP, stackShortcutFor } from './stack-shortcuts';

describe('stack viewer keys', () => {
  it('pages, jumps to the ends and picks the scroll tool; the single viewer keys still work', () => {
    expect(stackShortcutFor('PageDown')).toEqual({ type: 'frame', step: PAGE_STEP });
    expect(stackShortcutFor('PageUp')).toEqual({ type: 'frame', step: -PAGE_STEP });
    expect(stackShortcutFor('Home')).toEqual({ type: 'slice', to: 'first' });
    expect(stackShortcutFor('End')).toEqual({ type: 'slice', to: 'last' });
    expect(stackShortcutFor('s')).toEqual({ type: 'mode', mode: 'scroll' });
    expect(stackShortcutFor('ArrowDown')).toEqual({ type: 'frame', step: 1 });
    expect(stackShortcutFor('3')).toEqual({ type: 'preset', preset: 'bone' });
    expect(stackShortcutFor('q')).toBeNull();
  });
});
