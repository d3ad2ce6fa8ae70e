import { describe, expect, it } from 'vitest';
import { globMatch, returnsPhi, textMatcher } from './qido-fields.ts';

const MiB = 2 ** 20;

describe('QIDO matching on stored values (docs/security.md › Memory bounds)', () => {
  it('takes time bounded by the capped value: a 200-character pattern against 1 MiB values of 100 candidates', () => {
    const long = 'a'.repeat(MiB);
    const json = {
      '00100010': { vr: 'PN', Value: [{ Alphabetic: long }] },
      '00080050': { vr: 'SH', Value: [long] },
      '00081030': { vr: 'LO', Value: [long] },
    };
    const pattern = `*${'a'.repeat(198)}b`;
    const filters = [
      { tag: '00100010', pattern, person: true, vr: 'PN' },
      { tag: '00080050', pattern, person: false, vr: 'SH' },
      { tag: '00081030', pattern, person: false, vr: 'LO' },
    ];
    const started = performance.now();
    for (let i = 0; i < 100; i++) for (const f of filters) expect(textMatcher([f], false)(json)).toBe(false);
    // Uncapped, one such match took 1.4 s (review 15 H4); capped, 300 of them take milliseconds.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('matches the value as stored: capped at 4 × the VR maximum (LO 256, SH 64, PN 256 characters)', () => {
    const json = {
      '00081030': { vr: 'LO', Value: ['d'.repeat(300)] },
      '00080050': { vr: 'SH', Value: ['7'.repeat(70)] },
    };
    const match = (tag: string, vr: string, pattern: string) =>
      textMatcher([{ tag, pattern, person: false, vr }], false)(json);
    expect(match('00081030', 'LO', 'd'.repeat(256))).toBe(true);
    expect(match('00081030', 'LO', 'd'.repeat(257))).toBe(false);
    expect(match('00081030', 'LO', 'd*')).toBe(true);
    expect(match('00080050', 'SH', '7'.repeat(64))).toBe(true);
    expect(match('00080050', 'SH', `${'7'.repeat(20)}*`)).toBe(true);
  });

  it('treats a character outside the BMP as one character for ?', () => {
    expect(globMatch('a?c', 'a\u{1F600}c')).toBe(true);
    expect(globMatch('a??c', 'a\u{1F600}c')).toBe(false);
    expect(globMatch('*b*', 'abc')).toBe(true);
    expect(globMatch('a*c', 'ab')).toBe(false);
  });
});

describe('QIDO results that carry PHI', () => {
  it('are those with an attribute the Basic Confidentiality Profile removes, empties or replaces, or a private one', () => {
    expect(returnsPhi('studies', [])).toBe(true); // Patient's Name, ID, Study Description …
    expect(returnsPhi('series', [])).toBe(true); // Series Description and Date
    expect(returnsPhi('instances', [])).toBe(false); // UIDs, Modality, Instance Number, Rows …
    // The stack viewer's attributes are geometry, not PHI.
    expect(returnsPhi('instances', ['00200013', '00200032', '00200037', '00201041'])).toBe(false);
    expect(returnsPhi('instances', ['00100010'])).toBe(true);
    expect(returnsPhi('instances', ['00091001'])).toBe(true);
    expect(returnsPhi('instances', 'all')).toBe(true);
  });
});
