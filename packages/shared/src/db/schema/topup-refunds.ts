import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { topupOrders } from './topup-orders';

export const TOPUP_REFUND_STATUSES = ['pending', 'succeeded', 'failed', 'held'] as const;
export type TopUpRefundStatus = (typeof TOPUP_REFUND_STATUSES)[number];

/**
 * Refunds of QR top-ups at their provider: an operator's (`origin` operator, placed through the
 * refund API: `pending` until the provider reports it `succeeded` or `failed`) or one made in the
 * merchant portal (`origin` provider, learnt `succeeded` from its notification). A success debits
 * the refunded share of the order's credit once (`debit_micro_usd`, ledger kind `refund`, ref =
 * this id); what the balance could not cover is `uncovered_micro_usd`. A success reported for more
 * than is left of the payment is `held` for an operator (migration 0025): nothing debited,
 * `failure` says what was reported.
 */
export const topupRefunds = pgTable(
  'topup_refunds',
  {
    /** `rfd_` + ULID; for an operator's refund also the merchant refund number sent to the provider */
    id: text('id').primaryKey(),
    orderId: text('order_id')
      .notNull()
      .references(() => topupOrders.id),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    provider: text('provider').notNull(),
    /** Alipay out_request_no (out_biz_no in its notification) / WeChat Pay out_refund_no; unique per order */
    refundNo: text('refund_no').notNull(),
    /** WeChat Pay refund_id; Alipay's refund number (it has no other id for a refund) */
    providerRefundId: text('provider_refund_id'),
    origin: text('origin', { enum: ['operator', 'provider'] }).notNull(),
    status: text('status', { enum: TOPUP_REFUND_STATUSES }).notNull().default('pending'),
    amountFen: bigint('amount_fen', { mode: 'number' }).notNull(),
    /** what the success took from the balance */
    debitMicroUsd: bigint('debit_micro_usd', { mode: 'number' }).notNull().default(0),
    /** the refunded share of the credit the balance did not cover (already spent) */
    uncoveredMicroUsd: bigint('uncovered_micro_usd', { mode: 'number' }).notNull().default(0),
    reason: text('reason'),
    operatorId: text('operator_id'),
    /** why the provider refused it (its code and message), or why it is held */
    failure: text('failure'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    succeededAt: timestamp('succeeded_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('topup_refunds_order_no_idx').on(t.orderId, t.refundNo),
    uniqueIndex('topup_refunds_provider_refund_idx')
      .on(t.provider, t.providerRefundId)
      .where(sql`${t.providerRefundId} is not null`),
    index('topup_refunds_pending_idx').on(t.createdAt).where(sql`${t.status} = 'pending'`),
  ],
);

export type TopUpRefundRow = typeof topupRefunds.$inferSelect;
