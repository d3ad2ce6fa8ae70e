import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { AppError, errorCode, loggedMessage } from '../errors.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** A code the mail carries; logged outside production so a developer can sign in without a mailbox. */
  devCode?: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  /**
   * Whether the last mail this process sent, in the last five minutes, failed: what a mail would
   * likely meet now. For a request that must fail as one that sends a mail would, without sending.
   */
  failing(): boolean;
  close(): void;
}

/** How long a send's outcome stands for the mail service's state. */
const HEALTH_MS = 5 * 60_000;

export function createMailer(config: Config['mail'], log: Logger): Mailer {
  const outboxDir = config.transport === 'outbox' ? config.dir : null;
  if (outboxDir) mkdirSync(outboxDir, { recursive: true, mode: 0o700 });
  const transport =
    config.transport === 'smtp'
      ? nodemailer.createTransport({
          url: config.url,
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 20_000,
        } as never)
      : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  let failedAt: number | null = null;
  return {
    async send(mail) {
      let info;
      try {
        info = await transport.sendMail({
          from: config.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
        });
        failedAt = null;
      } catch (err) {
        failedAt = Date.now();
        log.error({ err: { message: loggedMessage(err), code: errorCode(err) } }, 'mail delivery failed');
        throw mailUnavailable();
      }
      if (outboxDir) {
        const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`;
        // Written aside and renamed: a reader of the outbox never sees half a mail.
        await writeFile(join(outboxDir, `.${name}.part`), info.message as Buffer, { mode: 0o600 });
        await rename(join(outboxDir, `.${name}.part`), join(outboxDir, name));
      }
      if (config.logCodes && mail.devCode) {
        log.info({ subject: mail.subject }, `development only: the code mailed is ${mail.devCode}`);
      }
    },
    failing: () => failedAt !== null && Date.now() - failedAt < HEALTH_MS,
    close: () => transport.close(),
  };
}

/** What a send answers when the mail service refuses it. */
export const mailUnavailable = () =>
  new AppError(503, 'mail_unavailable', 'The e-mail could not be sent. Please try again shortly.');
