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

/** The sharing id and code for an image; the caption stays out of the mail (it may be PHI). */
export function imageSharedMail(
  name: string,
  sharedBy: string,
  sharingId: string,
  code: string,
  expiresAt: Date | null,
  viewUrl: string,
) {
  return {
    subject: 'A medical image was shared with you on MedShare',
    ...layout(`Hello ${name},`, [
      `${sharedBy} shared a medical image with you. To see it, open View Images, choose Verify on the image and enter the sharing id and the code below.`,
      `Sharing id: ${sharingId}`,
      code,
      expiresAt
        ? `The share ends on ${expiresAt.toUTCString()}. After five wrong codes it is locked.`
        : 'This share does not expire. After five wrong codes it is locked.',
      `Open MedShare: ${viewUrl}`,
      'Never forward this mail: the code unlocks the image.',
    ]),
  };
}
