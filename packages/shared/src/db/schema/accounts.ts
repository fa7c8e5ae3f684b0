import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const accounts = pgTable(
  'accounts',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull().unique(),
    status: text('status', { enum: ['active', 'disabled'] })
      .notNull()
      .default('active'),
    /** argon2id hash; null for accounts made by an operator without a console login */
    passwordHash: text('password_hash'),
    role: text('role', { enum: ['user', 'admin'] })
      .notNull()
      .default('user'),
    /** per-account override of the requests-per-minute limit of each of its keys; null = the default */
    rpmLimit: integer('rpm_limit'),
    /** per-account override of the number of unfinished video tasks; null = the default */
    maxActiveVideoTasks: integer('max_active_video_tasks'),
    /** micro-USD; changes only together with a ledger row (billing module) */
    balanceMicroUsd: bigint('balance_micro_usd', { mode: 'number' }).notNull().default(0),
    /** unfinished (pending or processing) video tasks; kept by the tasks module with every create and terminal move */
    activeVideoTasks: integer('active_video_tasks').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('accounts_created_at_idx').on(t.createdAt),
    check('accounts_balance_nonneg', sql`${t.balanceMicroUsd} >= 0`),
  ],
);
