import { type SQL, sql } from 'drizzle-orm';

/*
 * The media row a success writes, lent to the task's move (tasks/tasks.ts composes it into the
 * statement of a success). A leaf: it imports nothing from the modules that borrow it.
 */
/** How long a vendor keeps a result's link working (spec: 24 h). */
export const VENDOR_LINK_TTL_MS = 24 * 3600 * 1000;

/**
 * The insert of a succeeded task's media row, as part of the statement that moves the task
 * (reading the moved row from the CTE `source`): the vendor's link, when it dies, and the end of
 * retention. Nothing is written unless the move applied; a second insert does nothing.
 */
export function taskMediaInsert(
  source: string,
  args: { sourceUrl: string; expiresAt: Date; now: Date },
): SQL {
  return taskMediaInsertSql(taskMediaValues(args), source);
}

/** What a task's media row holds besides the task (see taskMediaInsert). */
export interface TaskMediaValues {
  mediaSourceUrl: string;
  mediaSourceExpiresAt: string;
  mediaExpiresAt: string;
  mediaAt: string;
}

export function taskMediaValues(args: { sourceUrl: string; expiresAt: Date; now: Date }): TaskMediaValues {
  return {
    mediaSourceUrl: args.sourceUrl,
    mediaSourceExpiresAt: new Date(args.now.getTime() + VENDOR_LINK_TTL_MS).toISOString(),
    mediaExpiresAt: args.expiresAt.toISOString(),
    mediaAt: args.now.toISOString(),
  };
}

/** taskMediaInsert written from its values, each a value or (in a statement template) the placeholder of one. */
export function taskMediaInsertSql(v: { [K in keyof TaskMediaValues]: unknown }, source: string): SQL {
  const from = sql.raw(source);
  return sql`
    insert into task_media (task_id, account_id, status, source_url, source_expires_at, expires_at, next_attempt_at)
    select ${from}.id, ${from}.account_id, 'pending', ${v.mediaSourceUrl}::text,
           ${v.mediaSourceExpiresAt}::timestamptz, ${v.mediaExpiresAt}::timestamptz, ${v.mediaAt}::timestamptz
    from ${from}
    on conflict do nothing`;
}
