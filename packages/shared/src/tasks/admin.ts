import { and, desc, eq, gte, lt, lte } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { type TaskRow, type TaskStatus, taskRetries, tasks } from '../db/schema';
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
 * its failure; the new task records it in `metadata.retry_of`. Idempotent per source task: the
 * retry is recorded (task_retries) in the transaction that creates and charges it, so a repeated
 * or concurrent retry returns the first one with `created: false` and charges nothing. Returns
 * null when `id` is not a failed task. Throws InsufficientQuotaError when the balance does not
 * cover the price. `inTransaction` runs inside the transaction that creates the retry (only when it
 * does), for what must commit with it (the operator's audit record).
 */
export async function retryFailedTask(
  db: Db,
  id: string,
  opts: {
    deadlineMs: number;
    operatorId?: string;
    inTransaction?: (tx: DbOrTx, retry: { original: TaskRow; row: TaskRow }) => Promise<void>;
  },
): Promise<{ row: TaskRow; created: boolean } | null> {
  const original = await getTask(db, id);
  if (original?.status !== 'failed') return null;
  const retryId = newTaskId();
  return db.transaction(async (tx) => {
    const claimed = await tx
      .insert(taskRetries)
      .values({ sourceTaskId: original.id, taskId: retryId, operatorId: opts.operatorId })
      .onConflictDoNothing()
      .returning({ taskId: taskRetries.taskId });
    if (claimed.length === 0) {
      // an earlier (or concurrent, now committed) retry of the same task
      const [earlier] = await tx
        .select({ task: tasks })
        .from(taskRetries)
        .innerJoin(tasks, eq(tasks.id, taskRetries.taskId))
        .where(eq(taskRetries.sourceTaskId, original.id));
      return earlier ? { row: earlier.task, created: false } : null;
    }
    const row = await createVideoTask(tx, {
      id: retryId,
      accountId: original.accountId,
      apiKeyId: original.apiKeyId,
      model: original.model,
      prompt: original.prompt,
      metadata: { ...(original.metadata as Record<string, unknown>), retry_of: original.id },
      priceMicroUsd: original.priceMicroUsd,
      requestId: original.requestId ?? undefined,
      deadlineAt: new Date(Date.now() + opts.deadlineMs),
    });
    await opts.inTransaction?.(tx, { original, row });
    return { row, created: true };
  });
}
