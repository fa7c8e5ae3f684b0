import type { Logger } from '@mediagate/shared/log';
import nodemailer from 'nodemailer';

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

/** The e-mail carrying a registration code. */
export function verificationMail(to: string, code: string, ttlMs: number): MailMessage {
  const minutes = Math.round(ttlMs / 60_000);
  return {
    to,
    subject: `Your mediagate verification code: ${code}`,
    text:
      `Your verification code is ${code}\n\n` +
      `Enter it to finish creating your mediagate account. It expires in ${minutes} minute${minutes === 1 ? '' : 's'}.\n` +
      'If you did not ask for it, ignore this e-mail.\n',
  };
}

/** Sent instead of a code when the address already has an account, so registration reveals nothing. */
export function alreadyRegisteredMail(to: string): MailMessage {
  return {
    to,
    subject: 'Your mediagate account',
    text:
      'Someone (perhaps you) tried to register a mediagate account with this e-mail address, ' +
      'which already has one. Log in with your password instead.\n' +
      'If it was not you, you can ignore this e-mail.\n',
  };
}

/** The e-mail carrying a password reset code. */
export function passwordResetMail(to: string, code: string, ttlMs: number): MailMessage {
  const minutes = Math.round(ttlMs / 60_000);
  return {
    to,
    subject: `Your mediagate password reset code: ${code}`,
    text:
      `Your password reset code is ${code}\n\n` +
      `Enter it with a new password to reset the password of your mediagate account. It expires in ${minutes} minute${minutes === 1 ? '' : 's'}.\n` +
      'Resetting the password signs out every session of the account.\n' +
      'If you did not ask for it, ignore this e-mail: your password stays as it is.\n',
  };
}
