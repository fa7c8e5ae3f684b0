import { index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/**
 * `Idempotency-Key` headers of task creations: the same key and body within 24 hours return the
 * first task instead of creating (and charging) another. Rows older than 24 hours are deleted by
 * the reconciler.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    key: text('key').notNull(),
    /** SHA-256 of the request body as the API understood it */
    requestHash: text('request_hash').notNull(),
    taskId: text('task_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.key] }),
    index('idempotency_keys_created_at_idx').on(t.createdAt),
  ],
);
