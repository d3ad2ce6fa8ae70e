import { describe, expect, it } from 'vitest';
import { ADMIN, PATIENT, PROVIDER, makeStudy, pendingStudy } from '../testing-fixtures';
import { studyActions, studyCounts, studyDisplay } from './study-rules';

describe('study card rules', () => {
  it('shows the study only when the server handed out its UID, else the state of the share', () => {
    expect(studyDisplay(makeStudy())).toBe('content');
    expect(studyDisplay(pendingStudy())).toBe('not-verified');
    for (const state of ['expired', 'revoked', 'locked'] as const)
      expect(studyDisplay(pendingStudy({ accessState: state }))).toBe(state);
  });

  it('offers Share to a non-patient on their own study, Verify while a code can unlock it, Open with access', () => {
    expect(studyActions(makeStudy(), PROVIDER)).toEqual({ open: true, share: true, verify: false });
    // A study another provider uploaded, as the admin lists it: open, not shared from here.
    expect(studyActions(makeStudy({ isShared: true }), ADMIN)).toEqual({ open: true, share: false, verify: false });
    expect(studyActions(pendingStudy(), PATIENT)).toEqual({ open: false, share: false, verify: true });
    expect(studyActions(pendingStudy({ accessState: 'locked' }), PATIENT).verify).toBe(false);
    expect(studyActions(makeStudy({ isShared: true, accessState: 'verified' }), PATIENT)).toEqual({
      open: true,
      share: false,
      verify: false,
    });
  });

  it('counts series and images', () => {
    expect(studyCounts({ seriesCount: 2, instanceCount: 3 })).toBe('2 series · 3 images');
    expect(studyCounts({ seriesCount: 1, instanceCount: 1 })).toBe('1 series · 1 image');
  });
});
