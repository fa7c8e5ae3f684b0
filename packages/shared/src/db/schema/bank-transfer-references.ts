import { pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/**
 * Each account's bank-transfer reference (billing/topup-orders.ts derives it from the account
 * id), stored when first shown, so that an operator finds the account from a transfer memo.
 */
export const bankTransferReferences = pgTable(
  'bank_transfer_references',
  {
    reference: text('reference').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('bank_transfer_references_account_idx').on(t.accountId)],
);
