import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { tasks } from './tasks';

/**
 * pending (not copied yet) → stored | failed (the copy gave up for now; retried while the vendor's
 * link lives) → expired (past retention, or the vendor link died before a copy) | deleted (by the
 * client). Written by the media module only.
 */
export const TASK_MEDIA_STATUSES = ['pending', 'stored', 'failed', 'expired', 'deleted'] as const;
export type TaskMediaStatus = (typeof TASK_MEDIA_STATUSES)[number];

/**
 * The media of a succeeded task: the vendor's link it came from, and the gateway's own copy of it
 * in storage (key, size, SHA-256, content type) with its first frame. Inserted by the move that
 * succeeds the task, in the same statement.
 */
export const taskMedia = pgTable(
  'task_media',
  {
    taskId: text('task_id')
      .primaryKey()
      .references(() => tasks.id),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    status: text('status', { enum: TASK_MEDIA_STATUSES }).notNull().default('pending'),
    /** the vendor's link (short-lived); cleared once the copy is stored */
    sourceUrl: text('source_url'),
    /** when the vendor's link stops working (the vendor keeps results 24 h) */
    sourceExpiresAt: timestamp('source_expires_at', { withTimezone: true }).notNull(),
    storageKey: text('storage_key'),
    bytes: bigint('bytes', { mode: 'number' }),
    sha256: text('sha256'),
    contentType: text('content_type'),
    thumbnailKey: text('thumbnail_key'),
    thumbnailBytes: bigint('thumbnail_bytes', { mode: 'number' }),
    copyAttempts: integer('copy_attempts').notNull().default(0),
    /** why the last copy attempt failed (null once stored) */
    copyError: text('copy_error'),
    /** when the reconciler may enqueue the copy again (pending or failed rows) */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    storedAt: timestamp('stored_at', { withTimezone: true }),
    /** end of retention: the stored media is deleted then, and the task's links stop working */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('task_media_copy_due_idx').on(t.nextAttemptAt).where(sql`${t.status} in ('pending', 'failed')`),
    index('task_media_expiry_idx').on(t.expiresAt).where(sql`${t.status} in ('pending', 'failed', 'stored')`),
  ],
);

export type TaskMediaRow = typeof taskMedia.$inferSelect;
