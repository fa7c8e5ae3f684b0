import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/**
 * Append-only money movements. The balance of an account always equals the sum of its rows.
 * A charge or refund carries the call it belongs to in `ref`; (kind, ref) is unique, so a retried
 * charge or refund cannot apply twice.
 */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    kind: text('kind', { enum: ['grant', 'topup', 'bonus', 'charge', 'refund', 'adjustment'] }).notNull(),
    amountMicroUsd: bigint('amount_micro_usd', { mode: 'number' }).notNull(),
    ref: text('ref'),
    reason: text('reason'),
    /** the operator who made a manual entry (adjustment, bank top-up); shown to operators only */
    operatorId: text('operator_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('ledger_account_idx').on(t.accountId, t.id),
    uniqueIndex('ledger_kind_ref_idx').on(t.kind, t.ref).where(sql`${t.ref} is not null`),
  ],
);
