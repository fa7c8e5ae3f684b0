import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { tasks } from './tasks';

/** `held`: not sent while its endpoint is disabled; sent when the endpoint is enabled again. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'held'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * The callback outbox: one row per (task, event), written in the transaction that moves the task.
 * Its id is the Standard Webhooks `webhook-id`, the same on every attempt; its body is fixed when
 * the row is written, so every retry sends the same bytes.
 */
export const callbackDeliveries = pgTable(
  'callback_deliveries',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id),
    eventType: text('event_type').notNull(),
    url: text('url').notNull(),
    /** the exact JSON body sent on every attempt */
    payload: text('payload').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
    /** attempts made in all, and in the current round (a manual redelivery starts a new round) */
    attemptCount: integer('attempt_count').notNull().default(0),
    roundAttempts: integer('round_attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    /** the disabled endpoint (webhook_endpoints.id) a held delivery waits for */
    heldFor: text('held_for'),
  },
  (t) => [
    uniqueIndex('callback_deliveries_task_event_idx').on(t.taskId, t.eventType),
    index('callback_deliveries_due_idx').on(t.nextAttemptAt, t.id).where(sql`${t.status} = 'pending'`),
    index('callback_deliveries_account_idx').on(t.accountId, t.status, t.createdAt),
    index('callback_deliveries_held_idx').on(t.heldFor).where(sql`${t.status} = 'held'`),
  ],
);

export type CallbackDeliveryRow = typeof callbackDeliveries.$inferSelect;
