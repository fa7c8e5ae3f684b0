import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    name: text('name').notNull(),
    /** hex SHA-256 of the whole key; the key itself is never stored */
    keyHash: text('key_hash').notNull(),
    /** first characters of the key, shown to the owner to tell keys apart */
    displayPrefix: text('display_prefix').notNull(),
    status: text('status', { enum: ['active', 'disabled', 'revoked'] })
      .notNull()
      .default('active'),
    /** spending cap of this key in micro-USD; null = only the account balance limits it */
    quotaMicroUsd: bigint('quota_micro_usd', { mode: 'number' }),
    /** net amount charged through this key (charges minus refunds), checked against the quota */
    usedMicroUsd: bigint('used_micro_usd', { mode: 'number' }).notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    /** public model ids this key may call; null = every model */
    allowedModels: text('allowed_models').array(),
    /** IPs or CIDR blocks this key may be used from; null = anywhere */
    allowedIps: text('allowed_ips').array(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_idx').on(t.keyHash),
    index('api_keys_account_idx').on(t.accountId),
    check('api_keys_used_nonneg', sql`${t.usedMicroUsd} >= 0`),
  ],
);
