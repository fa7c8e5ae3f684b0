import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { type TaskMediaRow, taskMedia } from '../db/schema';
import { endTaskMediaLinks } from '../tasks/task-links-sql';

export async function getTaskMedia(db: DbOrTx, taskId: string): Promise<TaskMediaRow | null> {
  const rows = await db.select().from(taskMedia).where(eq(taskMedia.taskId, taskId)).limit(1);
  return rows[0] ?? null;
}

/**
 * Counts one copy attempt of a media row still waiting for its copy (pending or failed) and
 * returns it; null when there is nothing to copy (stored, expired, deleted, or no row).
 */
export async function beginCopyAttempt(db: DbOrTx, taskId: string): Promise<TaskMediaRow | null> {
  const rows = await db
    .update(taskMedia)
    .set({ copyAttempts: sql`${taskMedia.copyAttempts} + 1`, updatedAt: new Date() })
    .where(and(eq(taskMedia.taskId, taskId), inArray(taskMedia.status, ['pending', 'failed'])))
    .returning();
  return rows[0] ?? null;
}

/** Records the stored copy (the vendor's link is forgotten). Idempotent; no effect on a deleted or expired row. */
export async function markMediaStored(
  db: DbOrTx,
  taskId: string,
  stored: {
    storageKey: string;
    bytes: number;
    sha256: string;
    contentType: string;
    thumbnailKey: string | null;
    thumbnailBytes: number | null;
  },
): Promise<boolean> {
  const now = new Date();
  const rows = await db
    .update(taskMedia)
    .set({
      ...stored,
      status: 'stored',
      sourceUrl: null,
      copyError: null,
      nextAttemptAt: null,
      storedAt: now,
      updatedAt: now,
    })
    .where(and(eq(taskMedia.taskId, taskId), inArray(taskMedia.status, ['pending', 'failed', 'stored'])))
    .returning({ id: taskMedia.taskId });
  return rows.length > 0;
}

/**
 * Records a failed copy: `retryAt` is when the reconciler may try again (null: never, e.g. the
 * file is too large or not a video). The task stays succeeded; its link serves the vendor's file
 * while that lives.
 */
export async function markCopyFailed(
  db: DbOrTx,
  taskId: string,
  error: string,
  retryAt: Date | null,
): Promise<void> {
  await db
    .update(taskMedia)
    .set({ status: 'failed', copyError: error.slice(0, 500), nextAttemptAt: retryAt, updatedAt: new Date() })
    .where(and(eq(taskMedia.taskId, taskId), inArray(taskMedia.status, ['pending', 'failed'])));
}

/** Copies to (re)try now: pending or failed rows due before `dueBefore` whose vendor link still lives. */
export async function listCopiesDue(db: DbOrTx, dueBefore: Date, limit: number): Promise<string[]> {
  const rows = await db
    .select({ taskId: taskMedia.taskId })
    .from(taskMedia)
    .where(
      and(
        inArray(taskMedia.status, ['pending', 'failed']),
        lte(taskMedia.nextAttemptAt, dueBefore),
        sql`${taskMedia.sourceExpiresAt} > now()`,
      ),
    )
    .orderBy(asc(taskMedia.nextAttemptAt))
    .limit(limit);
  return rows.map((r) => r.taskId);
}

/** Rows never copied whose vendor link has died: nothing is left to serve; they become expired. */
export async function expireUncopied(db: DbOrTx, limit: number): Promise<string[]> {
  const { rows } = await db.execute<{ task_id: string }>(sql`
    update task_media set status = 'expired', next_attempt_at = null, source_url = null, updated_at = now()
    where task_id in (
      select task_id from task_media
      where status in ('pending', 'failed') and next_attempt_at is not null and source_expires_at <= now()
      limit ${limit})
    returning task_id`);
  return rows.map((r) => r.task_id);
}

/** Media past retention (`expires_at` before `now`) still holding, or waiting for, stored objects. */
export async function listExpiredMedia(db: DbOrTx, now: Date, limit: number): Promise<TaskMediaRow[]> {
  return db
    .select()
    .from(taskMedia)
    .where(and(inArray(taskMedia.status, ['pending', 'failed', 'stored']), lte(taskMedia.expiresAt, now)))
    .orderBy(asc(taskMedia.expiresAt))
    .limit(limit);
}

/**
 * Marks the media `expired` (retention ended) or `deleted` (by the client) once its objects are
 * gone; a deletion also ends the task's links at once. Returns whether the row changed.
 */
export async function markMediaGone(db: Db, taskId: string, how: 'expired' | 'deleted'): Promise<boolean> {
  return db.transaction(async (tx) => {
    const now = new Date();
    const rows = await tx
      .update(taskMedia)
      .set({
        status: how,
        sourceUrl: null,
        nextAttemptAt: null,
        deletedAt: how === 'deleted' ? now : null,
        updatedAt: now,
      })
      .where(and(eq(taskMedia.taskId, taskId), inArray(taskMedia.status, ['pending', 'failed', 'stored'])))
      .returning({ id: taskMedia.taskId });
    if (rows.length === 0) return false;
    if (how === 'deleted') await endTaskMediaLinks(tx, taskId, now);
    return true;
  });
}

/** Bytes and objects (videos and thumbnails) in storage, for the storage gauges. */
export async function storedMediaTotals(db: DbOrTx): Promise<{ bytes: number; objects: number }> {
  // kept by a trigger on task_media (migration 0012), so reading them costs one row
  const { rows } = await db.execute<{ bytes: string; objects: string }>(
    sql`select bytes::text, objects::text from media_totals`,
  );
  return { bytes: Number(rows[0]?.bytes ?? 0), objects: Number(rows[0]?.objects ?? 0) };
}
