import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/**
 * An image uploaded in the console's playground, to be a video's input: stored under `storage_key`
 * and served without credentials at `<PUBLIC_BASE_URL>/media/uploads/<id>.<ext>` (the id is
 * unguessable) until `expires_at`. Inserted before the bytes are stored (so the account's quota is
 * counted first); `stored_at` once they are. Written by the media module only.
 */
export const playgroundUploads = pgTable(
  'playground_uploads',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    storageKey: text('storage_key').notNull(),
    contentType: text('content_type').notNull(),
    bytes: bigint('bytes', { mode: 'number' }),
    sha256: text('sha256'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    storedAt: timestamp('stored_at', { withTimezone: true }),
    /** deleted by its owner or past `expires_at` (the object removed from storage) */
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    index('playground_uploads_account_idx').on(t.accountId, t.createdAt),
    index('playground_uploads_expiry_idx').on(t.expiresAt).where(sql`${t.deletedAt} is null`),
  ],
);

export type PlaygroundUploadRow = typeof playgroundUploads.$inferSelect;
