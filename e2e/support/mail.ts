import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { E2E } from './env.ts';

/** Outbox files already read: the app writes each mail once and never changes it. */
const readMails = new Map<string, string>();

/** Mails the app wrote to DATA_DIR/outbox (MAIL_TRANSPORT=outbox), newest last. */
function mailsTo(address: string): string[] {
  const dir = join(E2E.dataDir, 'outbox');
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.eml'))
      .sort();
  } catch {
    return [];
  }
  const to = new RegExp(`^To: .*${address.replace(/[.+]/g, '\\$&')}`, 'im');
  return files
    .map((f) => {
      const path = join(dir, f);
      let eml = readMails.get(path);
      if (eml === undefined) {
        eml = readFileSync(path, 'utf8');
        readMails.set(path, eml);
      }
      return eml;
    })
    .filter((eml) => to.test(eml));
}

export function mailCount(address: string): number {
  return mailsTo(address).length;
}

/** Waits for a mail to the address beyond the first `after` ones and returns its 6-digit code. */
export async function waitForCode(address: string, after = 0, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = mailsTo(address);
    if (mails.length > after) {
      const match = /^(?:Verification code: )?(\d{6})\s*$/m.exec(mails.at(-1)!);
      if (match) return match[1]!;
    }
    if (Date.now() > deadline) throw new Error(`no code mailed to ${address}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The reset link token from the newest reset mail. */
export async function waitForResetToken(address: string, after = 0): Promise<string> {
  await waitForCode(address, after);
  // Undo quoted-printable: soft line breaks and '=3D' for '='.
  const raw = mailsTo(address)
    .at(-1)!
    .replace(/=\r?\n/g, '')
    .replace(/=3D/g, '=');
  const match = /reset-password\?token=([A-Za-z0-9_%-]+)/.exec(raw);
  if (!match) throw new Error('no reset link in the mail');
  return decodeURIComponent(match[1]!);
}

/** Undoes quoted-printable: soft line breaks and =XX escapes (enough for the ASCII parts we read). */
function unquote(eml: string): string {
  return eml
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Waits for a share mail to the address beyond the first `after` mails: its sharing id and code. */
export async function waitForShareMail(
  address: string,
  after = 0,
  timeoutMs = 10_000,
): Promise<{ sharingId: string; code: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Sign-in mails may arrive after the share mail: take the newest mail that is a share mail.
    for (const mail of mailsTo(address).slice(after).reverse()) {
      const text = unquote(mail);
      const id = /Sharing id: ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/i.exec(text);
      const code = /^(?:Verification code: )?(\d{6})\s*$/m.exec(text);
      if (id && code) return { sharingId: id[1]!, code: code[1]! };
    }
    if (Date.now() > deadline) throw new Error(`no share mail to ${address}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
