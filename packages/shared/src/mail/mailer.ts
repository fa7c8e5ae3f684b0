import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { z } from 'zod';
import type { Logger } from '../log';

/** Variables of the processes that send e-mail (the API; the callbacks role, for disabled endpoints). */
export const mailEnvShape = {
  /** smtp(s)://user:pass@host:port; unset = e-mails (and their codes) are written to the log */
  SMTP_URL: z
    .string()
    .optional()
    .transform((v) => (v && v.length > 0 ? v : undefined)),
  /** sender of the e-mails (verification codes, password resets, disabled webhook endpoints) */
  MAIL_FROM: z.string().default('mediagate <no-reply@mediagate.local>'),
  /**
   * with SMTP_URL unset, each e-mail is also written to this directory, one .eml file per message
   * (pnpm start: .data/mail); unset = the log only
   */
  MAIL_DIR: z
    .string()
    .optional()
    .transform((v) => (v && v.length > 0 ? v : undefined)),
};

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** What the message is for, in a word or two (`signup`, `password-reset`): names its development file. */
  kind?: string;
}

/** Sends e-mail. `send` resolves once the message was accepted for delivery, or throws. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  /**
   * Runs `job` (work that ends in a `send`) off the request path: the request answers without
   * waiting for it, and a failure is logged under `what`, never thrown. `drain` waits for it.
   */
  sendLater(what: string, job: () => Promise<void>): void;
  /** Waits until every job `sendLater` started has ended (shutdown). */
  drain(): Promise<void>;
  close(): void;
}

/** `send` and `close` with the background jobs of `sendLater` around them. */
function withBackground(base: Pick<Mailer, 'send' | 'close'>, logger: Logger): Mailer {
  const running = new Set<Promise<void>>();
  return {
    ...base,
    sendLater: (what, job) => {
      const p: Promise<void> = Promise.resolve()
        .then(job)
        .catch((err: unknown) => logger.error({ err }, `could not send the ${what} e-mail`))
        .finally(() => running.delete(p));
      running.add(p);
    },
    drain: async () => {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

/**
 * The file name of a development message: its time (UTC, `:` as `-`), its kind and its recipient,
 * e.g. `2026-11-27T15-30-00.123Z-signup-alice@example.com.eml`; characters a file name should not
 * carry become `_`.
 */
export function mailFileName(m: MailMessage, at: Date): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9@._+-]/g, '_').slice(0, 100);
  return `${at.toISOString().replace(/:/g, '-')}-${safe(m.kind ?? 'mail')}-${safe(m.to)}.eml`;
}

/** The message as a plain-text .eml file: headers, a blank line, the text. */
function emlOf(m: MailMessage, from: string, at: Date): string {
  const header = (s: string) => s.replace(/[\r\n]+/g, ' ');
  return [
    `From: ${header(from)}`,
    `To: ${header(m.to)}`,
    `Subject: ${header(m.subject)}`,
    `Date: ${at.toUTCString()}`,
    `Message-ID: <${randomBytes(12).toString('hex')}@mediagate.local>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    m.text,
  ].join('\r\n');
}

/**
 * Nodemailer over SMTP when `smtpUrl` is set; otherwise the development mailer, which writes
 * every message (verification codes included) to the log instead of sending it, and, with `dir`,
 * to a file of its own in that directory (created when missing; files readable by their owner
 * only, since they hold codes). `send` resolves once the file is written.
 */
export function createMailer(opts: { smtpUrl?: string; from: string; logger: Logger; dir?: string }): Mailer {
  if (!opts.smtpUrl) {
    const dir = opts.dir;
    opts.logger.warn(
      dir
        ? `SMTP_URL is not set: e-mails are written to the log and to ${dir} instead of being sent`
        : 'SMTP_URL is not set: e-mails are written to the log instead of being sent',
    );
    return withBackground(
      {
        send: async (m) => {
          opts.logger.info(
            { mail: { to: m.to, subject: m.subject, text: m.text } },
            `dev mail to ${m.to}: ${m.subject}`,
          );
          if (!dir) return;
          const at = new Date();
          await mkdir(dir, { recursive: true, mode: 0o700 });
          // the same name twice in a millisecond: a suffix, never an overwrite
          const name = mailFileName(m, at);
          const eml = emlOf(m, opts.from, at);
          for (let n = 0; ; n += 1) {
            const file = path.join(dir, n === 0 ? name : name.replace(/\.eml$/, `-${n}.eml`));
            try {
              await writeFile(file, eml, { flag: 'wx', mode: 0o600 });
              return;
            } catch (err) {
              if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 20) throw err;
            }
          }
        },
        close: () => {},
      },
      opts.logger,
    );
  }
  const url = new URL(opts.smtpUrl);
  const secure = url.protocol === 'smtps:';
  const transport = nodemailer.createTransport(
    {
      host: url.hostname,
      port: Number(url.port) || (secure ? 465 : 587),
      secure,
      auth: url.username
        ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
        : undefined,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    },
    { from: opts.from },
  );
  return withBackground(
    {
      send: async (m) => {
        await transport.sendMail({ to: m.to, subject: m.subject, text: m.text });
      },
      close: () => transport.close(),
    },
    opts.logger,
  );
}
