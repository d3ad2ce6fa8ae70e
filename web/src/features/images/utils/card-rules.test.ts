import { describe, expect, it } from 'vitest';
import { ADMIN, OTHER_PROVIDER, PATIENT, PROVIDER, makeImage, pendingShare, verifiedShare } from '../testing-fixtures';
import { cardActions, cardDisplay, splitImages } from './card-rules';

describe('card display (docs/product.md › States and transitions)', () => {
  it('shows the content to the sharer', () => {
    expect(cardDisplay(makeImage(), PROVIDER).kind).toBe('content');
  });

  it('shows the content once the viewer has verified', () => {
    expect(cardDisplay(verifiedShare(), PATIENT).kind).toBe('content');
  });

  it('shows the content to an admin', () => {
    const asAdmin = makeImage({ isShared: true, uploadedByMe: false });
    expect(cardDisplay(asAdmin, ADMIN).kind).toBe('content');
  });

  it("shows 'Image not Verified' to anyone else", () => {
    expect(cardDisplay(pendingShare(), PATIENT).kind).toBe('not-verified');
    expect(cardDisplay(pendingShare(), OTHER_PROVIDER).kind).toBe('not-verified');
  });

  it('never shows content the server did not hand out, even to an entitled viewer', () => {
    expect(cardDisplay(makeImage({ image_url: null, accessState: 'revoked' }), PROVIDER).kind).toBe('revoked');
  });

  it('says honestly when a share expired, was revoked or locked', () => {
    expect(cardDisplay(pendingShare({ accessState: 'expired' }), PATIENT).kind).toBe('expired');
    expect(cardDisplay(pendingShare({ accessState: 'revoked' }), PATIENT).kind).toBe('revoked');
    expect(cardDisplay(pendingShare({ accessState: 'locked' }), PATIENT).kind).toBe('locked');
  });
});

describe('card buttons (docs/product.md › States and transitions)', () => {
  it('a non-patient sees Share on own uploaded images only', () => {
    expect(cardActions(makeImage(), PROVIDER).share).toBe(true);
    expect(cardActions(verifiedShare(), OTHER_PROVIDER).share).toBe(false);
    expect(cardActions(verifiedShare(), PATIENT).share).toBe(false);
  });

  it('a non-patient sees Verify on shared images not yet verified, never on uploaded ones', () => {
    expect(cardActions(pendingShare(), OTHER_PROVIDER).verify).toBe(true);
    expect(cardActions(verifiedShare(), OTHER_PROVIDER).verify).toBe(false);
    expect(cardActions(makeImage(), PROVIDER).verify).toBe(false);
  });

  it('a patient sees Verify on images not yet verified', () => {
    expect(cardActions(pendingShare(), PATIENT).verify).toBe(true);
    expect(cardActions(verifiedShare(), PATIENT).verify).toBe(false);
  });

  it('offers no Verify once a share expired, was revoked or locked (no code can open it)', () => {
    for (const accessState of ['expired', 'revoked', 'locked'] as const) {
      expect(cardActions(pendingShare({ accessState }), PATIENT).verify).toBe(false);
      expect(cardActions(pendingShare({ accessState }), OTHER_PROVIDER).verify).toBe(false);
    }
  });

  it('a non-patient sees delete and Ai when the image is uploaded or verified', () => {
    expect(cardActions(makeImage(), PROVIDER)).toMatchObject({ delete: true, ai: true });
    expect(cardActions(verifiedShare(), OTHER_PROVIDER)).toMatchObject({ delete: true, ai: true });
    expect(cardActions(pendingShare(), OTHER_PROVIDER)).toMatchObject({ delete: false, ai: false });
  });

  it('a patient never sees Share, delete or Ai', () => {
    expect(cardActions(verifiedShare(), PATIENT)).toMatchObject({ share: false, delete: false, ai: false });
  });

  it('View and Download are there for anyone who may see the content', () => {
    expect(cardActions(verifiedShare(), PATIENT)).toMatchObject({ view: true, download: true });
    expect(cardActions(makeImage(), PROVIDER)).toMatchObject({ view: true, download: true });
    expect(cardActions(pendingShare(), PATIENT)).toMatchObject({ view: false, download: false });
  });
});

describe('list split (docs/product.md › States and transitions)', () => {
  it('puts images that are not shared under Uploaded and shared ones under Shared', () => {
    const own = makeImage();
    const received = verifiedShare({ id: '77777777-7777-4777-8777-777777777777' });
    expect(splitImages([own, received])).toEqual({ uploaded: [own], shared: [received] });
  });
});
