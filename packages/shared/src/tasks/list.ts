import { and, desc, eq, lt } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { type TaskRow, type TaskStatus, tasks } from '../db/schema';

/**
 * One page of an account's tasks, newest first, by keyset on the task id (ULIDs sort by creation
 * time): the page after `afterId`, optionally of one status. `hasMore` says whether another page follows.
 */
export async function listTasksForAccount(
  db: DbOrTx,
  opts: { accountId: string; limit: number; afterId?: string; status?: TaskStatus },
): Promise<{ rows: TaskRow[]; hasMore: boolean }> {
  const rows = await db
    .select()
    .from(tasks)
    .where(
      and(
        eq(tasks.accountId, opts.accountId),
        opts.afterId ? lt(tasks.id, opts.afterId) : undefined,
        opts.status ? eq(tasks.status, opts.status) : undefined,
      ),
    )
    .orderBy(desc(tasks.id))
    .limit(opts.limit + 1);
  return { rows: rows.slice(0, opts.limit), hasMore: rows.length > opts.limit };
}
