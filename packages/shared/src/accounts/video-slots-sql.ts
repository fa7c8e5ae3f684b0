import { type SQL, sql } from 'drizzle-orm';

/**
 * An account's unfinished video tasks are counted on its row (`active_video_tasks`): a slot is
 * taken in the statement that charges a create (billing/ledger.ts) and given back in the
 * statement of the task's terminal move (tasks/tasks.ts), whichever process makes it. One row
 * update each way, so the limit is exact under concurrency and costs the same however many
 * tasks the account has. These fragments are how other modules' statements touch the counter.
 */

/** The SET clause that takes a slot, for an `update accounts` statement. */
export const takeVideoSlot: SQL = sql`active_video_tasks = active_video_tasks + 1`;

/**
 * The condition that a slot is free when at most `max` may be taken (a value or a placeholder;
 * null: no limit, always true).
 */
export function videoSlotFree(max: unknown, accountAlias = ''): SQL {
  const column = sql.raw(accountAlias ? `${accountAlias}.active_video_tasks` : 'active_video_tasks');
  return sql`(${max}::int is null or ${column} < ${max}::int)`;
}

/** The statement that gives back a slot of the account `accountId` (a value or a subquery). */
export function releaseVideoSlotStatement(accountId: SQL | string): SQL {
  return sql`update accounts set active_video_tasks = greatest(active_video_tasks - 1, 0) where id = ${accountId}`;
}
