import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/**
 * One row per billed call, written by the billing module in the charge's transaction: which key
 * called which model for how many units at what cost, and later what came of it (refunds, outcome,
 * latency of the answer).
 */
export const usageRecords = pgTable(
  'usage_records',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    apiKeyId: text('api_key_id'),
    /** the call's billing reference (task id, image call id); same as the ledger rows' ref */
    ref: text('ref').notNull(),
    model: text('model'),
    /** images requested, or 1 for a video task */
    units: integer('units').notNull().default(1),
    costMicroUsd: bigint('cost_micro_usd', { mode: 'number' }).notNull(),
    refundedMicroUsd: bigint('refunded_micro_usd', { mode: 'number' }).notNull().default(0),
    /** accepted → succeeded | partial | failed; a video task's outcome is its task status */
    outcome: text('outcome', { enum: ['accepted', 'succeeded', 'partial', 'failed'] })
      .notNull()
      .default('accepted'),
    requestId: text('request_id'),
    latencyMs: integer('latency_ms'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * When the call's money was settled for good. Null only while an image call runs: its
     * settlement (refund of the undelivered images, then this stamp) commits in one transaction,
     * and the reconciler refunds in full a call left null too long (its process died, or the
     * settle failed). Every other charge (a video task, whose refund is its task's terminal move)
     * is written settled.
     */
    settledAt: timestamp('settled_at', { withTimezone: true }).defaultNow(),
  },
  (t) => [
    uniqueIndex('usage_records_ref_idx').on(t.ref),
    index('usage_records_account_idx').on(t.accountId, t.id),
    index('usage_records_request_idx').on(t.requestId),
    index('usage_records_unsettled_idx').on(t.createdAt).where(sql`${t.settledAt} is null`),
  ],
);
