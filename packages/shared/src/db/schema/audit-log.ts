import { bigserial, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/** What an operator's action acted on. */
export const AUDIT_TARGET_TYPES = ['account', 'task', 'queue', 'webhook_endpoint', 'topup'] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/**
 * Operators' actions, one row per change, written in the transaction that makes the change:
 * who (the operator's account and its e-mail at the time), what (`action`, the target and the
 * account it belongs to), when, and the values before and after. Append-only: a trigger refuses
 * UPDATE, DELETE and TRUNCATE, so no route, job or hand-typed statement can rewrite it.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    operatorId: text('operator_id')
      .notNull()
      .references(() => accounts.id),
    operatorEmail: text('operator_email').notNull(),
    /** e.g. `account.disable`, `account.limits`, `task.retry` (see audit/log.ts) */
    action: text('action').notNull(),
    /** the account the target belongs to (null for a fleet-wide target such as a queue) */
    accountId: text('account_id').references(() => accounts.id),
    targetType: text('target_type', {
      enum: AUDIT_TARGET_TYPES,
    }).notNull(),
    targetId: text('target_id').notNull(),
    before: jsonb('before'),
    after: jsonb('after'),
    /** the reason the operator gave, where the action asks for one */
    reason: text('reason'),
    requestId: text('request_id'),
  },
  (t) => [
    index('audit_log_account_idx').on(t.accountId, t.id),
    index('audit_log_target_idx').on(t.targetId, t.id),
  ],
);

export type AuditLogRow = typeof auditLog.$inferSelect;
