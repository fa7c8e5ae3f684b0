import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

export const TASK_STATUSES = ['pending', 'processing', 'succeeded', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const tasks = pgTable(
  'tasks',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    apiKeyId: text('api_key_id').notNull(),
    model: text('model').notNull(),
    status: text('status', { enum: TASK_STATUSES }).notNull().default('pending'),
    progress: integer('progress').notNull().default(0),
    prompt: text('prompt').notNull(),
    /** the normalized `metadata` of the request, returned as-is in the task object */
    metadata: jsonb('metadata').notNull(),
    priceMicroUsd: bigint('price_micro_usd', { mode: 'number' }).notNull(),
    requestId: text('request_id'),
    /** channel that accepted the upstream task; the task stays on it */
    upstreamChannel: text('upstream_channel'),
    upstreamTaskId: text('upstream_task_id'),
    /** set just before the submit call; with no upstream id it means the outcome of a submit is unknown */
    submitStartedAt: timestamp('submit_started_at', { withTimezone: true }),
    videoUrl: text('video_url'),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    usage: jsonb('usage'),
    deadlineAt: timestamp('deadline_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    /** a succeeded task: when its video links stop working (end of media retention, or deletion) */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    /** a succeeded task: the gateway's signed link to its first frame (video_url is signed too) */
    thumbnailUrl: text('thumbnail_url'),
  },
  (t) => [
    index('tasks_account_id_idx').on(t.accountId, t.id),
    // status-filtered lists of one account, newest first
    index('tasks_account_status_id_idx').on(t.accountId, t.status, t.id),
    index('tasks_active_idx').on(t.status, t.id).where(sql`${t.status} in ('pending', 'processing')`),
    // counts an account's unfinished tasks for its video concurrency limit
    index('tasks_account_active_idx').on(t.accountId).where(sql`${t.status} in ('pending', 'processing')`),
  ],
);

export type TaskRow = typeof tasks.$inferSelect;
