import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * A registration waiting for its e-mail code: one row per e-mail address (a new registration
 * replaces the previous one). The code is stored only as a hash; the row is deleted once the
 * account exists.
 */
export const emailVerifications = pgTable('email_verifications', {
  email: text('email').primaryKey(),
  /** argon2id hash of the password chosen at registration */
  passwordHash: text('password_hash').notNull(),
  /** hex SHA-256 of `email:code`; null after too many wrong tries (a new code must be sent) */
  codeHash: text('code_hash'),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  failedAttempts: integer('failed_attempts').notNull().default(0),
  lastSentAt: timestamp('last_sent_at', { withTimezone: true }).notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
