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
};

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
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
 * Nodemailer over SMTP when `smtpUrl` is set; otherwise the development mailer, which writes
 * every message (verification codes included) to the log instead of sending it.
 */
export function createMailer(opts: { smtpUrl?: string; from: string; logger: Logger }): Mailer {
  if (!opts.smtpUrl) {
    opts.logger.warn('SMTP_URL is not set: e-mails are written to the log instead of being sent');
    return withBackground(
      {
        send: async (m) => {
          opts.logger.info(
            { mail: { to: m.to, subject: m.subject, text: m.text } },
            `dev mail to ${m.to}: ${m.subject}`,
          );
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
