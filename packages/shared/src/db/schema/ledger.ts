import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
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
    /** English text of older readers; the console words an entry from `details` */
    reason: text('reason'),
    /** what the entry is, in fields (LedgerDetails); null on a charge (its usage record says) */
    details: jsonb('details').$type<LedgerDetails>(),
    /** the operator who made a manual entry (adjustment, bank top-up); shown to operators only */
    operatorId: text('operator_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('ledger_account_idx').on(t.accountId, t.id),
    uniqueIndex('ledger_kind_ref_idx').on(t.kind, t.ref).where(sql`${t.ref} is not null`),
  ],
);

/**
 * What a ledger entry is, in fields (`ledger_entries.details`): the console words every entry in
 * the reader's language from these, never from the English `reason` (kept for older readers).
 * `cause` tells the variants apart; amounts are integers (fen, micro-USD); identifiers and an
 * operator's note are kept as given.
 */
export type LedgerDetails =
  // grant
  | { cause: 'signup_credit' }
  | { cause: 'initial_credit' }
  | { cause: 'operator_grant' }
  // topup and bonus: the payment they come from
  | { cause: 'payment'; provider: string; reference: string; paid: PaidAmount }
  // refund of a call (its model comes from the call's usage record)
  | { cause: 'task_failed'; error_code: string }
  | { cause: 'images_not_delivered'; missing: number; requested: number }
  | { cause: 'image_call_failed' }
  | { cause: 'unsettled'; after_s: number }
  | {
      cause: 'usage_settlement';
      quoted_micro_usd: number;
      actual_micro_usd: number;
      duration_s: number;
      resolution: string;
      audio: boolean;
    }
  // refund of a top-up through its provider (a debit)
  | {
      cause: 'topup_refund';
      provider: string;
      order_id: string | null;
      refund_fen: number;
      topup_fen: number;
    }
  // adjustment: the operator's own words
  | { cause: 'operator'; note: string };

/** An amount as the payer paid it: yuan in fen, or dollars in micro-USD. */
export type PaidAmount =
  | { currency: 'CNY'; amount_fen: number }
  | { currency: 'USD'; amount_micro_usd: number };

/** The details of a refund of a call. */
export type CallRefundDetails = Extract<
  LedgerDetails,
  { cause: 'task_failed' | 'images_not_delivered' | 'image_call_failed' | 'unsettled' | 'usage_settlement' }
>;
