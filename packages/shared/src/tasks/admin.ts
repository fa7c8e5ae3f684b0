import { and, desc, eq, gte, lt, lte } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { type TaskRow, type TaskStatus, tasks } from '../db/schema';
import { newTaskId } from '../ids';
import { createVideoTask, getTask } from './tasks';

export interface TaskSearch {
  status?: TaskStatus;
  model?: string;
  accountId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  afterId?: string;
  limit: number;
}

/** Operators' search over every account's tasks, newest first, keyset-paged by task id. */
export async function findTasks(db: DbOrTx, q: TaskSearch): Promise<{ rows: TaskRow[]; hasMore: boolean }> {
  const rows = await db
    .select()
    .from(tasks)
    .where(
      and(
        q.status ? eq(tasks.status, q.status) : undefined,
        q.model ? eq(tasks.model, q.model) : undefined,
        q.accountId ? eq(tasks.accountId, q.accountId) : undefined,
        q.createdAfter ? gte(tasks.createdAt, q.createdAfter) : undefined,
        q.createdBefore ? lte(tasks.createdAt, q.createdBefore) : undefined,
        q.afterId ? lt(tasks.id, q.afterId) : undefined,
      ),
    )
    .orderBy(desc(tasks.id))
    .limit(q.limit + 1);
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}

/**
 * Runs a failed task again as a new task with the same model, prompt and metadata, charged to the
 * same account (the failed one was refunded). Terminal states never change, so the original keeps
 * its failure; the new task records it in `metadata.retry_of`. Returns null when `id` is not a
 * failed task. Throws InsufficientQuotaError when the balance does not cover the price.
 */
export async function retryFailedTask(
  db: Db,
  id: string,
  opts: { deadlineMs: number },
): Promise<TaskRow | null> {
  const original = await getTask(db, id);
  if (!original || original.status !== 'failed') return null;
  return createVideoTask(db, {
    id: newTaskId(),
    accountId: original.accountId,
    apiKeyId: original.apiKeyId,
    model: original.model,
    prompt: original.prompt,
    metadata: { ...(original.metadata as Record<string, unknown>), retry_of: original.id },
    priceMicroUsd: original.priceMicroUsd,
    requestId: original.requestId ?? undefined,
    deadlineAt: new Date(Date.now() + opts.deadlineMs),
  });
}
