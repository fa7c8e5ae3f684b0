import { boolean, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/**
 * Webhook settings of an account: its signing secret (`whsec_` + base64), the secret it replaced
 * while the rotation overlap lasts, and which optional events it receives. Created on first use.
 * The secret is kept in clear because every delivery is signed with it (HMAC needs the key).
 */
export const accountWebhookSettings = pgTable('account_webhook_settings', {
  accountId: text('account_id')
    .primaryKey()
    .references(() => accounts.id),
  secret: text('secret').notNull(),
  /** the secret before the last rotation; deliveries carry its signature too until it expires */
  previousSecret: text('previous_secret'),
  previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true }),
  /** opt-in to `video.processing` events (succeeded and failed are always sent) */
  sendProcessing: boolean('send_processing').notNull().default(false),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  rotatedAt: timestamp('rotated_at', { withTimezone: true }),
});

export type AccountWebhookSettingsRow = typeof accountWebhookSettings.$inferSelect;
