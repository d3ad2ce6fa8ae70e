import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';

/** Mailed codes in the log (docs/security.md › Identity and sessions): a developer's outbox only. */
describe('codes in the log', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'medshare-mail-codes-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const logCodes = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir, ...env }).mail.logCodes;

  it('are logged for the outbox outside production, where no mail leaves the machine', () => {
    expect(logCodes({})).toBe(true);
    expect(logCodes({ NODE_ENV: 'development', MAIL_TRANSPORT: 'outbox' })).toBe(true);
  });

  it('are never logged beside real delivery, even when NODE_ENV was left unset (npm start on a server)', () => {
    expect(logCodes({ MAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://mail.example.org:587' })).toBe(false);
    expect(logCodes({ NODE_ENV: 'development', MAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://mail.example.org' })).toBe(
      false,
    );
  });
});
