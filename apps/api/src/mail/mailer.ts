export { createMailer, type Mailer, type MailMessage } from '@mediagate/shared/mail';

import type { MailMessage } from '@mediagate/shared/mail';

/** The e-mail carrying a registration code. */
export function verificationMail(to: string, code: string, ttlMs: number): MailMessage {
  const minutes = Math.round(ttlMs / 60_000);
  return {
    to,
    kind: 'signup',
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
    kind: 'signup-existing',
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
    kind: 'password-reset',
    subject: `Your mediagate password reset code: ${code}`,
    text:
      `Your password reset code is ${code}\n\n` +
      `Enter it with a new password to reset the password of your mediagate account. It expires in ${minutes} minute${minutes === 1 ? '' : 's'}.\n` +
      'Resetting the password signs out every session of the account.\n' +
      'If you did not ask for it, ignore this e-mail: your password stays as it is.\n',
  };
}
