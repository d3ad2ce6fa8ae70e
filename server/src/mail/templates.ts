/** Plain, accessible mails; values are escaped because names come from users. */
const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function layout(title: string, paragraphs: string[]): { text: string; html: string } {
  const text = [title, '', ...paragraphs, '', '— MedShare'].join('\n');
  const html = `<!doctype html><html><body style="font-family:sans-serif;color:#1a2b3c">
<h2>${escape(title)}</h2>${paragraphs.map((p) => `<p>${escape(p)}</p>`).join('')}
<p style="color:#667">— MedShare</p></body></html>`;
  return { text, html };
}

export function verificationCodeMail(name: string, code: string, ttlMinutes: number, reason: 'register' | 'login') {
  const intro =
    reason === 'register'
      ? 'Welcome to MedShare. Confirm your e-mail address with this code:'
      : 'Your MedShare sign-in code is:';
  return {
    subject: reason === 'register' ? 'Confirm your MedShare account' : 'Your MedShare sign-in code',
    ...layout(`Hello ${name},`, [
      intro,
      code,
      `The code expires in ${ttlMinutes} minutes and works once. If you did not ask for it, ignore this mail and consider changing your password.`,
    ]),
  };
}

export function passwordResetMail(name: string, code: string, link: string, ttlMinutes: number) {
  return {
    subject: 'Reset your MedShare password',
    ...layout(`Hello ${name},`, [
      'Someone asked to reset your MedShare password. Enter this code on the reset page:',
      code,
      `Or open this link: ${link}`,
      `Both expire in ${ttlMinutes} minutes. If it was not you, ignore this mail: your password stays as it is.`,
    ]),
  };
}

export function accountActivatedMail(name: string, loginUrl: string) {
  return {
    subject: 'Your MedShare account is active',
    ...layout(`Hello ${name},`, [
      'An administrator has reviewed and activated your provider account.',
      `You can sign in now: ${loginUrl}`,
    ]),
  };
}

/** The web route that opens an image's Verify dialog with this sharing id filled in (never the code). */
export function shareVerifyLink(publicUrl: string, sharingId: string): string {
  return `${publicUrl}/view-images?verify=${encodeURIComponent(sharingId)}`;
}

/** User text on one line: no line breaks or control characters (a subject must not grow headers). */
const oneLine = (s: string) =>
  s
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
const shorten = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1).trimEnd()}…` : s);

/** The end of a share in the app's display time zone, the zone named; UTC when the zone is unusable. */
export function shareEndText(expiresAt: Date, locale: string, timeZone: string): string {
  const format = (loc: string, zone: string) =>
    new Intl.DateTimeFormat(loc, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }).format(expiresAt);
  try {
    return `${format(locale, timeZone)} (${timeZone})`;
  } catch {
    return `${format('en-GB', 'UTC')} (UTC)`;
  }
}

export interface ImageSharedMailInput {
  recipientName: string;
  /** The sharer's name as the image card shows it. */
  sharedBy: string;
  /**
   * The caption of the image the share points at: what the recipient sees on the card anyway (for a
   * de-identified share, the copy's neutral caption, never the source's).
   */
  caption: string;
  sharingId: string;
  code: string;
  /** Null: the patient's own share, which does not end. */
  expiresAt: Date | null;
  display: { locale: string; timeZone: string };
  publicUrl: string;
}

/** What a study share names besides its caption: counts and modalities, never a DICOM text attribute. */
export interface StudySharedMailInput extends ImageSharedMailInput {
  /**
   * Without counts: the patient's own share of a study, opened by its first uploaded image; the
   * study's later images join it.
   */
  study: { modalities: string[]; series?: number; instances?: number; deidentified: boolean };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * One share: what was shared, by whom, until when, the labelled code, and a link to the image's Verify
 * dialog with the sharing id filled in (`docs/security.md` › What a share mail may contain).
 */
export function imageSharedMail(input: ImageSharedMailInput) {
  const caption = oneLine(input.caption) || 'Medical image';
  return sharedMail(input, {
    caption,
    noun: 'image',
    label: 'Image',
    intro: 'a medical image',
    extra: [],
    ownEnd: 'Does not end (your own image)',
  });
}

/**
 * A whole DICOM study under one sharing id and code: named by its caption (what the study card shows
 * before the code), its modalities and its series and image counts; never the Study Description or
 * any other attribute sealed with the files (`docs/security.md` › What a share mail may contain).
 */
export function studySharedMail(input: StudySharedMailInput) {
  const { modalities, series, instances, deidentified } = input.study;
  const kind = `${deidentified ? 'de-identified ' : ''}${modalities.length ? `${modalities.join('/')} ` : 'DICOM '}study`;
  const caption = oneLine(input.caption) || `A ${kind}`;
  const counts =
    series !== undefined && instances !== undefined
      ? `${plural(series, 'series', 'series')}, ${plural(instances, 'image', 'images')}`
      : null;
  return sharedMail(input, {
    caption,
    noun: 'study',
    label: 'Study',
    intro: counts ? `a ${kind} (${counts})` : `a ${kind}`,
    extra: [
      ['Contents', counts ?? 'Every image of this study uploaded for you, now and later: this code opens them all'],
    ],
    ownEnd: 'Does not end (your own study)',
  });
}

function sharedMail(
  input: ImageSharedMailInput,
  what: {
    caption: string;
    noun: 'image' | 'study';
    label: string;
    intro: string;
    extra: Array<[string, string]>;
    ownEnd: string;
  },
) {
  const { caption } = what;
  const sharedBy = oneLine(input.sharedBy) || 'A MedShare user';
  const link = shareVerifyLink(input.publicUrl, input.sharingId);
  const ends = input.expiresAt
    ? shareEndText(input.expiresAt, input.display.locale, input.display.timeZone)
    : what.ownEnd;
  const details: Array<[string, string]> = [
    [what.label, caption],
    ...what.extra,
    ['Shared by', sharedBy],
    ['Share ends', ends],
    ['Sharing id', input.sharingId],
  ];
  const greeting = `Hello ${oneLine(input.recipientName)},`;
  const intro = `${sharedBy} shared ${what.intro} with you on MedShare.`;
  const how = `Open the link below, sign in if asked, and enter the verification code: the Verify dialog of this ${what.noun} opens with the sharing id filled in.`;
  const warning = `After five wrong codes the share is locked. Never forward this mail: the code unlocks the ${what.noun}.`;
  const text = [
    greeting,
    '',
    intro,
    '',
    ...details.map(([label, value]) => `${label}: ${value}`),
    '',
    `Verification code: ${input.code}`,
    '',
    how,
    `Verify this ${what.noun}: ${link}`,
    '',
    warning,
    '',
    '— MedShare',
  ].join('\n');
  const rows = details
    .map(
      ([label, value]) =>
        `<tr><th scope="row" style="text-align:left;padding:2px 12px 2px 0;vertical-align:top;white-space:nowrap">${escape(label)}</th><td style="padding:2px 0">${escape(value)}</td></tr>`,
    )
    .join('');
  const html = `<!doctype html><html><body style="font-family:sans-serif;color:#1a2b3c">
<h2>${escape(greeting)}</h2><p>${escape(intro)}</p>
<table role="presentation" style="border-collapse:collapse;margin:8px 0">${rows}</table>
<p>Verification code: <strong style="font-size:1.4em;letter-spacing:0.15em">${escape(input.code)}</strong></p>
<p>${escape(how)}</p>
<p><a href="${escape(link)}" style="display:inline-block;padding:10px 16px;background:#1565c0;color:#fff;text-decoration:none;border-radius:6px">Verify this ${what.noun}</a></p>
<p style="font-size:0.9em">Or copy this address: ${escape(link)}</p>
<p>${escape(warning)}</p>
<p style="color:#667">— MedShare</p></body></html>`;
  return {
    // The sharer and the caption tell seven mails apart (`docs/security.md` › What a share mail may contain).
    subject: `${shorten(sharedBy, 40)} shared “${shorten(caption, 60)}” with you on MedShare`,
    text,
    html,
  };
}

/** To the owner of an e-mail someone tried to register again: the registration answer does not say it is taken. */
export function registrationAttemptMail(name: string, loginUrl: string, resetUrl: string) {
  return {
    subject: 'Someone tried to register with your e-mail on MedShare',
    ...layout(`Hello ${name},`, [
      'Someone just tried to create a MedShare account with this e-mail address. You already have an account, so no new one was created.',
      `If it was you, sign in: ${loginUrl}`,
      `Forgot your password? Reset it: ${resetUrl}`,
      'If it was not you, you need not do anything: your account is unchanged.',
    ]),
  };
}

export interface ExternalShareMailInput {
  /** The sharer's name: the recipient must know who is sending. */
  sharedBy: string;
  kind: 'image' | 'study';
  deidentified: boolean;
  /** `${publicUrl}/x#<token>`: the token rides in the fragment, which never reaches a server or a Referer. */
  link: string;
  expiresAt: Date;
  display: { locale: string; timeZone: string };
}

/**
 * A share with someone without an account: the sharer, what kind of thing, the link and its end.
 * Never a caption, a patient's name, a DICOM attribute or the code (it goes by another channel):
 * `docs/security.md` › Sharing with someone without an account.
 */
export function externalShareMail(input: ExternalShareMailInput) {
  const sharedBy = oneLine(input.sharedBy) || 'A MedShare user';
  const what = `${input.deidentified ? 'de-identified ' : ''}medical ${input.kind === 'study' ? 'study' : 'image'}`;
  return {
    subject: `${shorten(sharedBy, 60)} shared a ${what} with you on MedShare`,
    ...layout('Hello,', [
      `${sharedBy} shared a ${what} with you. You do not need an account to see it.`,
      `Open this link: ${input.link}`,
      `${sharedBy} will give you a 6-digit code by phone or message: the link opens nothing without it. The code is not in this mail.`,
      `Access ends ${shareEndText(input.expiresAt, input.display.locale, input.display.timeZone)}.`,
      'If you did not expect this, ignore this mail.',
    ]),
  };
}
