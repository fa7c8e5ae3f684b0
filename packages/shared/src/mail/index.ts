// The module's public face: what the apps and the other modules call. Anything else is internal.
export { createMailer, mailEnvShape } from './mailer';
export type { MailMessage, Mailer } from './mailer';
