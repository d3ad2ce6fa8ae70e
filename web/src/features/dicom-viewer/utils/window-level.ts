/** Window/level in DICOM terms (PS3.3 C.11.2.1.2): width W and centre (level) L in modality units. */
export type WindowLevel = { width: number; center: number };
/** Cornerstone's form of the same window: the lowest and highest value mapped to black and white. */
export type VoiRange = { lower: number; upper: number };

export type PresetId = 'default' | 'lung' | 'bone' | 'brain' | 'abdomen';
export type Preset = { id: PresetId; label: string; key: string; window: WindowLevel | null };

/**
 * The usual CT windows in Hounsfield units. `default` has no numbers: it goes back to the
 * window stored in the file (or the one computed from the pixel range when the file has none).
 */
export const PRESETS: readonly Preset[] = [
  { id: 'default', label: 'Default', key: '1', window: null },
  { id: 'lung', label: 'Lung', key: '2', window: { width: 1500, center: -600 } },
  { id: 'bone', label: 'Bone', key: '3', window: { width: 2000, center: 300 } },
  { id: 'brain', label: 'Brain', key: '4', window: { width: 80, center: 40 } },
  { id: 'abdomen', label: 'Abdomen', key: '5', window: { width: 400, center: 50 } },
];

export function presetById(id: PresetId): Preset {
  const preset = PRESETS.find((p) => p.id === id);
  if (!preset) throw new Error(`Unknown preset ${id}`);
  return preset;
}

/** A window never gets narrower than one unit: a zero width would divide by zero in the LUT. */
export const MIN_WINDOW_WIDTH = 1;

export function toVoiRange({ width, center }: WindowLevel): VoiRange {
  const w = Math.max(MIN_WINDOW_WIDTH, width);
  return { lower: center - w / 2, upper: center + w / 2 };
}

export function fromVoiRange({ lower, upper }: VoiRange): WindowLevel {
  return { width: Math.max(MIN_WINDOW_WIDTH, upper - lower), center: (lower + upper) / 2 };
}

/** Which preset (if any) the current window equals, for the pressed state of the preset buttons. */
export function matchingPreset(current: WindowLevel, defaultWindow: WindowLevel | null): PresetId | null {
  const same = (a: WindowLevel, b: WindowLevel) =>
    Math.abs(a.width - b.width) < 0.5 && Math.abs(a.center - b.center) < 0.5;
  for (const preset of PRESETS) {
    const target = preset.window ?? defaultWindow;
    if (target && same(current, target)) return preset.id;
  }
  return null;
}

export function formatWindowLevel({ width, center }: WindowLevel): string {
  const round = (n: number) => (Math.abs(n) >= 10 ? Math.round(n) : Math.round(n * 10) / 10);
  return `W ${round(width)} / L ${round(center)}`;
}
