import { bigint, bigserial, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/**
 * Top-ups received: a QR-code payment notified by a provider, or a bank transfer entered by an
 * operator. Unique per (provider, reference), so a repeated notification credits once.
 */
export const payments = pgTable(
  'payments',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    /** `bank_transfer` or the name of the payment provider */
    provider: text('provider').notNull(),
    reference: text('reference').notNull(),
    amountMicroUsd: bigint('amount_micro_usd', { mode: 'number' }).notNull(),
    bonusMicroUsd: bigint('bonus_micro_usd', { mode: 'number' }).notNull().default(0),
    /** who entered it (an admin's account id) for bank transfers */
    createdBy: text('created_by'),
    note: text('note'),
    raw: jsonb('raw'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('payments_provider_reference_idx').on(t.provider, t.reference),
    index('payments_account_idx').on(t.accountId, t.id),
  ],
);
