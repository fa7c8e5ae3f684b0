import { index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

export const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];

/**
 * The health of an account's callback endpoints, one row per endpoint (a callback URL without its
 * query string and fragment) that has ever failed for good. A delivery that fails after its whole
 * retry schedule marks its endpoint failing (`failing_since`, kept while the failures go on); any
 * delivered attempt clears it. An endpoint failing for longer than the configured period is
 * disabled: its deliveries are held (`callback_deliveries.status = 'held'`) until it is enabled
 * again, which sends them and those that failed while it was failing.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    /** `ep_` + ULID */
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    /** scheme, host, port and path of the callback URLs it stands for */
    url: text('url').notNull(),
    status: text('status', { enum: WEBHOOK_ENDPOINT_STATUSES }).notNull().default('enabled'),
    /** the first final failure of the current run of failures; null when its last delivery arrived */
    failingSince: timestamp('failing_since', { withTimezone: true }),
    lastFailureAt: timestamp('last_failure_at', { withTimezone: true }),
    /** what the last failed attempt got (status code or error) */
    lastError: text('last_error'),
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
    /** why it was disabled, in words the customer reads */
    disabledReason: text('disabled_reason'),
    /** when the owner was e-mailed about the disable (null: not yet, or the mail failed) */
    notifiedAt: timestamp('notified_at', { withTimezone: true }),
    enabledAt: timestamp('enabled_at', { withTimezone: true }),
    /** the account that enabled it again: the owner, or an operator */
    enabledBy: text('enabled_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('webhook_endpoints_account_url_idx').on(t.accountId, t.url),
    index('webhook_endpoints_disabled_idx').on(t.status, t.disabledAt),
  ],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
