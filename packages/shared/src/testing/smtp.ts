import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { waitFor } from './wait';

export interface ReceivedMail {
  to: string[];
  raw: string;
}

export interface TestSmtp {
  url: string;
  inbox: ReceivedMail[];
  /** waits for the next mail to `to` after the `seen` mails already read, and returns it */
  nextMail: (to: string, seen?: number) => Promise<ReceivedMail>;
  /** waits for a verification code mailed to `to` (the newest one) */
  codeFor: (to: string, seen?: number) => Promise<string>;
  /** how many mails `to` has received so far */
  count: (to: string) => number;
  close: () => Promise<void>;
}

/**
 * A real SMTP server on a free port that keeps every message it receives. `replyDelayMs` makes it
 * wait that long before answering the connection, MAIL FROM, RCPT TO and the message, as a
 * distant or busy mail server does.
 */
export async function startTestSmtp(opts: { replyDelayMs?: number } = {}): Promise<TestSmtp> {
  const inbox: ReceivedMail[] = [];
  const delay = opts.replyDelayMs ?? 0;
  const later = (callback: () => void) => (delay > 0 ? setTimeout(callback, delay) : callback());
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect: (_session, callback) => later(() => callback()),
    onMailFrom: (_address, _session, callback) => later(() => callback()),
    onRcptTo: (_address, _session, callback) => later(() => callback()),
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        later(() => callback());
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const mailsTo = (to: string) => inbox.filter((m) => m.to.includes(to.toLowerCase()));
  const nextMail = (to: string, seen = 0) =>
    waitFor(() => mailsTo(to)[seen], { timeoutMs: 10_000, what: `mail #${seen + 1} to ${to}` });
  return {
    url: `smtp://127.0.0.1:${port}`,
    inbox,
    nextMail,
    count: (to) => mailsTo(to).length,
    codeFor: async (to, seen = 0) => {
      const mail = await nextMail(to, seen);
      const code = /verification code is (\d{6})/.exec(mail.raw)?.[1];
      if (!code) throw new Error(`no code in the mail to ${to}:\n${mail.raw}`);
      return code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
