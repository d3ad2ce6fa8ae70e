import { type ParsedMail, simpleParser } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** A real SMTP server in the test process: the app's nodemailer speaks SMTP to it. */
export async function startSmtp() {
  const mails: ReceivedMail[] = [];
  const waiters: Array<() => void> = [];
  let failing = false;
  let held: { arrived: () => void; released: Promise<void> } | null = null;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    async onData(stream, _session, callback) {
      if (held) {
        const { arrived, released } = held;
        held = null;
        arrived();
        await released;
      }
      if (failing) {
        stream.resume();
        stream.on('end', () => callback(new Error('451 mailbox unavailable (test outage)')));
        return;
      }
      simpleParser(stream)
        .then((parsed: ParsedMail) => {
          const to = Array.isArray(parsed.to) ? parsed.to[0]?.text : parsed.to?.text;
          mails.push({
            to: (to ?? '').toLowerCase(),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
          });
          waiters.splice(0).forEach((w) => w());
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** Simulates an outage: every message is refused until set back. */
    setFailing(value: boolean) {
      failing = value;
    },
    /**
     * Holds the next message in the middle of its sending until `release()`: `reached` resolves once
     * it is held there (a request that sends a mail inside a transaction is held inside it).
     */
    holdNext() {
      let release!: () => void;
      let arrived!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      held = { arrived, released };
      return { reached, release };
    },
    /** The newest mail to this address, waiting briefly for it to arrive. */
    async lastTo(address: string, timeoutMs = 5_000): Promise<ReceivedMail> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = mails.filter((m) => m.to.includes(address.toLowerCase())).at(-1);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${address}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    countTo: (address: string) => mails.filter((m) => m.to.includes(address.toLowerCase())).length,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type TestSmtp = Awaited<ReturnType<typeof startSmtp>>;

/** The first 6-digit code in a mail: on a line of its own, or labelled (share mails). */
export function codeIn(mail: ReceivedMail): string {
  const match = /^\s*(?:Verification code:\s*)?(\d{6})\s*$/m.exec(mail.text);
  if (!match) throw new Error(`no code in mail: ${mail.subject}`);
  return match[1]!;
}
