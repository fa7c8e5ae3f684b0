import { and, eq, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { accounts } from '../db/schema';

/**
 * Takes one of the account's unfinished-video-task slots inside the caller's transaction, or
 * returns false when `max` are taken (no limit when `max` is undefined). One row update, so the
 * limit is exact under concurrency and costs the same however many tasks the account has.
 */
export async function reserveVideoSlot(tx: DbOrTx, accountId: string, max?: number): Promise<boolean> {
  const rows = await tx
    .update(accounts)
    .set({ activeVideoTasks: sql`${accounts.activeVideoTasks} + 1` })
    .where(
      and(eq(accounts.id, accountId), max === undefined ? undefined : lt(accounts.activeVideoTasks, max)),
    )
    .returning({ id: accounts.id });
  return rows.length > 0;
}

/** Gives a slot back when a task reaches a terminal state, inside the transaction of that move. */
export async function releaseVideoSlot(tx: DbOrTx, accountId: string): Promise<void> {
  await tx
    .update(accounts)
    .set({ activeVideoTasks: sql`greatest(${accounts.activeVideoTasks} - 1, 0)` })
    .where(eq(accounts.id, accountId));
}
