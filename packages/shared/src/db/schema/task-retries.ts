import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { tasks } from './tasks';

/**
 * Operator retries of failed tasks, one per source task: the row is written in the transaction
 * that creates and charges the new task, so a repeated or concurrent retry finds it and creates
 * nothing.
 */
export const taskRetries = pgTable('task_retries', {
  sourceTaskId: text('source_task_id')
    .primaryKey()
    .references(() => tasks.id),
  taskId: text('task_id')
    .notNull()
    .references(() => tasks.id),
  /** the operator's account id */
  operatorId: text('operator_id'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
