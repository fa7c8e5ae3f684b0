import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/**
 * A password reset waiting for its e-mailed code: at most one per account (a new request replaces
 * it). The code is stored only as a hash; the row is deleted when the password is reset.
 */
export const passwordResets = pgTable('password_resets', {
  accountId: text('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  /** hex SHA-256 of `account_id:code`; null after too many wrong tries (a new code must be asked for) */
  codeHash: text('code_hash'),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  failedAttempts: integer('failed_attempts').notNull().default(0),
  lastSentAt: timestamp('last_sent_at', { withTimezone: true }).notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
