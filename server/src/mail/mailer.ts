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
  close(): void;
}

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
      } catch (err) {
        log.error({ err: { message: loggedMessage(err), code: errorCode(err) } }, 'mail delivery failed');
        throw new AppError(503, 'mail_unavailable', 'The e-mail could not be sent. Please try again shortly.');
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
    close: () => transport.close(),
  };
}
