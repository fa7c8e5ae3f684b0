import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

export const TOPUP_STATUSES = ['created', 'paid', 'credited', 'closed', 'expired', 'cancelled'] as const;
export type TopUpOrderStatus = (typeof TOPUP_STATUSES)[number];

/**
 * QR-code top-up orders: `created` when the provider returned the QR content, then `paid` and
 * `credited` in the one transaction that writes the payment and its ledger entries, or `closed`
 * (the provider closed it) / `expired` (closed at the provider after `expires_at`) / `cancelled`
 * (by the customer; `closed_at` is set once its code can no longer be paid, and until then the
 * reconciler keeps querying it: a payment made meanwhile is credited).
 */
export const topupOrders = pgTable(
  'topup_orders',
  {
    /** `top_` + ULID; the provider's out_trade_no */
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    /** `alipay` or `wechat` */
    provider: text('provider').notNull(),
    status: text('status', { enum: TOPUP_STATUSES }).notNull().default('created'),
    /** what the payer pays, in CNY fen */
    amountFen: bigint('amount_fen', { mode: 'number' }).notNull(),
    /** what it credits (amount / TOPUP_CNY_PER_USD) and its bonus, fixed at creation */
    creditMicroUsd: bigint('credit_micro_usd', { mode: 'number' }).notNull(),
    bonusMicroUsd: bigint('bonus_micro_usd', { mode: 'number' }).notNull().default(0),
    /** what the provider refunded of the payment so far (succeeded refunds, topup_refunds), in fen */
    refundedFen: bigint('refunded_fen', { mode: 'number' }).notNull().default(0),
    /** Alipay trade_no / WeChat Pay transaction_id, once paid */
    providerTradeId: text('provider_trade_id'),
    qrCode: text('qr_code'),
    /** a top-up paid on a phone: the URL the payer's browser opens (Alipay wap.pay, WeChat Pay H5) */
    payUrl: text('pay_url'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    creditedAt: timestamp('credited_at', { withTimezone: true }),
    closedAt: timestamp('closed_at', { withTimezone: true }),
    cancelledAt: timestamp('cancelled_at', { withTimezone: true }),
  },
  (t) => [
    index('topup_orders_account_idx').on(t.accountId, t.id),
    index('topup_orders_open_idx')
      .on(t.createdAt)
      .where(
        sql`${t.status} in ('created', 'paid') or (${t.status} = 'cancelled' and ${t.closedAt} is null)`,
      ),
    index('topup_orders_account_created_idx').on(t.accountId, t.createdAt),
    uniqueIndex('topup_orders_provider_trade_idx')
      .on(t.provider, t.providerTradeId)
      .where(sql`${t.providerTradeId} is not null`),
  ],
);

export type TopUpOrderRow = typeof topupOrders.$inferSelect;
