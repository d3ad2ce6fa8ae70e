import { describe, expect, it } from 'vitest';
import { PRESETS, formatWindowLevel, fromVoiRange, matchingPreset, presetById, toVoiRange } from './window-level';

describe('window/level presets', () => {
  it('has the usual CT windows in Hounsfield units', () => {
    expect(presetById('lung').window).toEqual({ width: 1500, center: -600 });
    expect(presetById('bone').window).toEqual({ width: 2000, center: 300 });
    expect(presetById('brain').window).toEqual({ width: 80, center: 40 });
    expect(presetById('abdomen').window).toEqual({ width: 400, center: 50 });
    expect(presetById('default').window).toBeNull();
  });

  it('gives every preset its own shortcut key', () => {
    expect(new Set(PRESETS.map((p) => p.key)).size).toBe(PRESETS.length);
  });
});

describe('window/level math', () => {
  it('turns W/L into the range mapped to black..white and back', () => {
    expect(toVoiRange({ width: 1500, center: -600 })).toEqual({ lower: -1350, upper: 150 });
    expect(toVoiRange({ width: 80, center: 40 })).toEqual({ lower: 0, upper: 80 });
    expect(fromVoiRange({ lower: -1350, upper: 150 })).toEqual({ width: 1500, center: -600 });
  });

  it('never makes a window narrower than one unit', () => {
    expect(toVoiRange({ width: 0, center: 10 })).toEqual({ lower: 9.5, upper: 10.5 });
    expect(fromVoiRange({ lower: 5, upper: 5 }).width).toBe(1);
    expect(fromVoiRange({ lower: 5, upper: 3 }).width).toBe(1);
  });

  it('recognises the preset the current window equals, including the file default', () => {
    const fileDefault = { width: 350, center: 40 };
    expect(matchingPreset({ width: 1500, center: -600 }, fileDefault)).toBe('lung');
    expect(matchingPreset({ width: 1500.2, center: -599.8 }, fileDefault)).toBe('lung');
    expect(matchingPreset(fileDefault, fileDefault)).toBe('default');
    expect(matchingPreset({ width: 1501, center: -600 }, fileDefault)).toBeNull();
    expect(matchingPreset({ width: 350, center: 40 }, null)).toBeNull();
  });

  it('formats the overlay text', () => {
    expect(formatWindowLevel({ width: 1500, center: -600 })).toBe('W 1500 / L -600');
    expect(formatWindowLevel({ width: 2.25, center: 0.5 })).toBe('W 2.3 / L 0.5');
  });
});
