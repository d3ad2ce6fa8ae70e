import { describe, expect, it } from 'vitest';
import { imageSharedMail, shareEndText, shareVerifyLink } from './templates.ts';

const base = {
  recipientName: 'Ann',
  sharedBy: 'Bob Jones',
  caption: 'Chest X-ray',
  sharingId: '3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f',
  code: '024680',
  expiresAt: new Date('2026-11-26T11:30:00Z'),
  display: { locale: 'en-GB', timeZone: 'Europe/Berlin' },
  publicUrl: 'https://medshare.example',
};

describe('the share mail template', () => {
  it('states the end in the display time zone, naming it', () => {
    expect(shareEndText(base.expiresAt, 'en-GB', 'Europe/Berlin')).toBe('26 Nov 2026, 12:30 (Europe/Berlin)');
  });

  it('states the end in UTC, said so, when the zone or locale cannot be used', () => {
    expect(shareEndText(base.expiresAt, 'en-GB', 'Mars/Olympus')).toBe('26 Nov 2026, 11:30 (UTC)');
    expect(shareEndText(base.expiresAt, 'not a locale!', 'Europe/Berlin')).toBe('26 Nov 2026, 11:30 (UTC)');
  });

  it('links to the Verify dialog with the sharing id and never the code', () => {
    const mail = imageSharedMail(base);
    const link = shareVerifyLink(base.publicUrl, base.sharingId);
    expect(link).toBe(`https://medshare.example/view-images?verify=${base.sharingId}`);
    expect(mail.text).toContain(`Verify this image: ${link}`);
    expect(mail.html).toContain(`<a href="${link}"`);
    expect(mail.text.split('\n').filter((line) => line.includes(base.code))).toEqual([
      `Verification code: ${base.code}`,
    ]);
  });

  it('says a patient share does not end', () => {
    expect(imageSharedMail({ ...base, expiresAt: null }).text).toContain('Share ends: Does not end (your own image)');
  });

  it('escapes user text in the HTML part and keeps the subject on one line, shortening a long caption', () => {
    const mail = imageSharedMail({
      ...base,
      sharedBy: 'Eve <b>Evil</b>',
      recipientName: '<script>x</script>',
      caption: `<svg onload=alert(1)>\n${'a'.repeat(200)}`,
    });
    expect(mail.html).not.toMatch(/<svg|<b>|<script>/);
    expect(mail.html).toContain('&lt;svg onload=alert(1)&gt;');
    expect(mail.html).toContain('Eve &lt;b&gt;Evil&lt;/b&gt;');
    expect(mail.subject).not.toMatch(/\n/);
    expect(mail.subject).toMatch(/^Eve <b>Evil<\/b> shared “<svg onload=alert\(1\)> a+…” with you on MedShare$/);
    expect(mail.subject.length).toBeLessThan(140);
  });

  it('falls back to neutral words for an empty caption or sharer name', () => {
    const mail = imageSharedMail({ ...base, caption: '  ', sharedBy: '' });
    expect(mail.subject).toBe('A MedShare user shared “Medical image” with you on MedShare');
  });
});
